/** Draws decoded frames on the OffscreenCanvas the page transferred to the worker. */
export class CanvasRenderer {
  private readonly ctx: OffscreenCanvasRenderingContext2D;

  constructor(private readonly canvas: OffscreenCanvas) {
    const ctx = canvas.getContext('2d', { alpha: false });
    if (!ctx) throw new Error('cannot draw: no 2D context on the canvas');
    this.ctx = ctx;
  }

  /** The canvas takes the frame's size, so the page's CSS scales one image of the right shape. */
  draw(frame: VideoFrame): void {
    const { displayWidth: w, displayHeight: h } = frame;
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
    }
    this.ctx.drawImage(frame, 0, 0, w, h);
  }
}
