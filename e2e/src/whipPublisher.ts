/**
 * A WHIP publisher as OBS is one, in Chromium: H.264 (packetization mode 1,
 * the only video codec offered) of a moving test picture from a canvas, and
 * Opus of a tone, offered once ICE gathering is complete (no trickle), with
 * the stream key as a bearer token. The video carries each frame's capture
 * time (the abs-capture-time RTP header extension, which Chromium sends once
 * negotiated), for the latency from publish to display. Runs in a page of its
 * own.
 */
import type { Page } from '@playwright/test';

export interface WhipPublishResult {
  status: number;
  location: string | null;
  link: string | null;
  /** The answer, or the error's body. */
  body: string;
}

type WhipWindow = { whip?: { pc: RTCPeerConnection; location: string | null } };

/** Publishes to `url` with `key` (or `offer` instead of the browser's own: a malformed offer's test). */
export async function publishWhip(page: Page, url: string, key: string, o: { fps?: number; offer?: string } = {}): Promise<WhipPublishResult> {
  return page.evaluate(
    async ({ url, key, fps, offer }) => {
      const canvas = document.createElement('canvas');
      canvas.width = 640;
      canvas.height = 360;
      const g = canvas.getContext('2d')!;
      let n = 0;
      setInterval(() => {
        n++;
        g.fillStyle = `hsl(${(n * 3) % 360} 70% 50%)`;
        g.fillRect(0, 0, 640, 360);
        g.fillStyle = '#fff';
        g.fillRect((n * 8) % 640, 100, 80, 160);
        g.font = '48px sans-serif';
        g.fillText(String(n), 20, 60);
      }, 1000 / fps);
      const audio = new AudioContext();
      const tone = audio.createOscillator();
      const out = audio.createMediaStreamDestination();
      tone.connect(out);
      tone.start();
      const pc = new RTCPeerConnection();
      const video = pc.addTransceiver(canvas.captureStream(fps).getVideoTracks()[0]!, { direction: 'sendonly' });
      const codecs = RTCRtpSender.getCapabilities('video')!.codecs;
      video.setCodecPreferences([...codecs.filter((c) => c.mimeType === 'video/H264' && /packetization-mode=1/.test(c.sdpFmtpLine ?? '')), ...codecs.filter((c) => c.mimeType === 'video/rtx')]);
      // Offered only when asked for (Chromium lists it stopped); not yet in TypeScript's DOM types.
      type Extension = { uri: string; direction: string };
      const negotiable = video as unknown as { getHeaderExtensionsToNegotiate(): Extension[]; setHeaderExtensionsToNegotiate(e: Extension[]): void };
      negotiable.setHeaderExtensionsToNegotiate(negotiable.getHeaderExtensionsToNegotiate().map((e) => (e.uri.endsWith('/abs-capture-time') ? { ...e, direction: 'sendrecv' } : e)));
      pc.addTransceiver(out.stream.getAudioTracks()[0]!, { direction: 'sendonly' });
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise<void>((resolve) => {
        if (pc.iceGatheringState === 'complete') resolve();
        pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && resolve());
      });
      const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/sdp' }, body: offer ?? pc.localDescription!.sdp });
      const body = await res.text();
      const location = res.headers.get('location');
      if (res.status === 201) {
        await pc.setRemoteDescription({ type: 'answer', sdp: body });
        (window as unknown as WhipWindow).whip = { pc, location };
      } else pc.close();
      return { status: res.status, location, link: res.headers.get('link'), body };
    },
    { url, key, fps: o.fps ?? 30, offer: o.offer },
  );
}

/** The publisher's connection state (new, connecting, connected, ...). */
export function whipState(page: Page): Promise<string | undefined> {
  return page.evaluate(() => (window as unknown as WhipWindow).whip?.pc.connectionState);
}
