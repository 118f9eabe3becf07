/** Draws decoded frames on the OffscreenCanvas the page transferred to the worker. */
export class CanvasRenderer {
  private readonly ctx: OffscreenCanvasRenderingContext2D;

  constructor(
    private readonly canvas: OffscreenCanvas,
    /** Every frame is drawn at this size (a lower rendition scaled up); absent: at its own size. */
    private readonly size?: { width: number; height: number },
  ) {
    const ctx = canvas.getContext('2d', { alpha: false });
    if (!ctx) throw new Error('cannot draw: no 2D context on the canvas');
    this.ctx = ctx;
  }

  /** The canvas takes the stream's size (or the frame's), so the page's CSS scales one image of the right shape. */
  draw(frame: VideoFrame): void {
    const { width: w, height: h } = this.size ?? { width: frame.displayWidth, height: frame.displayHeight };
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
    }
    this.ctx.drawImage(frame, 0, 0, w, h);
  }
}
