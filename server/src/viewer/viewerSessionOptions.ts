/** What a viewer session is made with, by who gives it: its media worker, its stream, its control, the server. */
import type { types as ms } from 'mediasoup';
import type { ControlLoopParams } from '@pels/shared/control/controlLoop';
import type { RenditionPolicyParams } from '@pels/shared/pels/renditionPolicy';
import type { ProbeBoard } from '@pels/shared/pels/probeBoard';
import type { FlowModeName } from '@pels/shared/protocol/api';
import type { ViewerClosed } from '@pels/shared/protocol/signaling';
import type { IntelligibilityModel } from '@pels/shared/upta/intelligibility';
import type { ViewerGateParams } from '@pels/shared/upta/viewerGate';
import type { FeedbackSource } from '../config';
import type { PacerClock } from '../flow/pacerClock';
import type { Limits } from '../limits/limits';
import type { Logger } from '../log';
import type { DscpMarker } from '../net/dscpMarker';
import type { PacketSinks } from '../sfu/packetSink';
import type { WorkerRequests } from '../sfu/workerRequests';
import type { KeyframeReason } from '../streams/keyframeRequests';
import type { SharedFanout } from './sharedFanout';

/** The media worker the viewer is on: the stream's router there, its one WebRtcServer, the way the flow's packets reach it, its timed requests. */
export interface ViewerWorker {
  router: ms.Router;
  /** The one UDP and TCP port the viewer's transport shares with every other on the worker. */
  webRtcServer: ms.WebRtcServer;
  /** How the flow's packets reach the worker's producers. */
  packetSinks: PacketSinks;
  /** The worker's requests, timed: the join's and the stats polls' (a slow one is logged with the channel's backlog). */
  requests: WorkerRequests;
}

/** What the viewer's stream shares with its viewers. */
export interface ViewerStream {
  id: string;
  /** How many renditions the stream has, and when the viewer moves between them. */
  renditions: number;
  renditionPolicy: RenditionPolicyParams;
  /** Shared by the stream's viewers: one up switch at a time, and what the others learn from it. */
  probeBoard: ProbeBoard;
  /** The stream's pacers' one ticker. */
  pacerClock: PacerClock;
  /** Asks a rendition's encoder for a keyframe (throttled there; one serves every viewer). */
  onKeyframeRequest: (reason: KeyframeReason, rendition: number) => void;
  /** FANOUT=shared: the stream's producers, fed once per frame; this viewer only consumes them. */
  fanout?: SharedFanout;
  /** The stream's sound on this viewer's router (streamAudio.ts; producer null: the router has none yet), and its timestamps' start. */
  audio: { producer: ms.Producer | null; timestampBase: number };
  /** Useless-packet avoidance (UPTA=on): base layer only, or nothing, while the viewer's loss makes the rest useless. */
  upta?: UptaOptions;
}

/** How the viewer's control core runs. */
export interface ControlSettings {
  loop: ControlLoopParams;
  /** Which feedback steps the controllers; the other kind is still measured, not acted on. */
  feedback: FeedbackSource;
  /** Where to record the viewer's control inputs (CONTROL_RECORD_DIR); absent: not recorded. */
  recordDir?: string;
}

/** The server's own, the same for every viewer. */
export interface ViewerServer {
  dscp: DscpMarker;
  /** The DTLS deadline and where its expiries are counted. */
  limits: Pick<Limits, 'settings' | 'rejections'>;
  log: Logger;
}

export interface ViewerSessionOptions {
  id: string;
  mode: FlowModeName;
  worker: ViewerWorker;
  stream: ViewerStream;
  control: ControlSettings;
  server: ViewerServer;
  /** Told once when the session closes, whatever closed it. */
  onClose: (closed: ViewerClosed) => void;
}

export interface UptaOptions {
  params: ViewerGateParams;
  /** The expected-quality model of a rendition's PSNR table; null until the table has rows. */
  model(rendition: number): IntelligibilityModel | null;
}
