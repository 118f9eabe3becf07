import type { QualityFrame } from '@pels/shared/protocol/signaling';
import { IntelligibilityModel } from '@pels/shared/upta/intelligibility';

/** The table changes slowly (the scene): its model is rebuilt at most this often, not at each viewer's question. */
const REBUILD_MS = 5000;

/**
 * One rendition's expected-quality model (UPTA), built from its PSNR table's
 * recent rows and shared by every viewer of that rendition.
 */
export class IntelligibilityCache {
  private model: IntelligibilityModel | null = null;
  private builtAtMs = -Infinity;

  constructor(private readonly rows: () => readonly QualityFrame[]) {}

  /** The model, null while the table has no rows. */
  current(nowMs: number): IntelligibilityModel | null {
    if (nowMs - this.builtAtMs >= REBUILD_MS) {
      const model = new IntelligibilityModel(this.rows());
      this.model = model.rowCount > 0 ? model : null;
      // An empty table is looked at again soon: the first rows come a few seconds after the start.
      this.builtAtMs = this.model ? nowMs : nowMs - REBUILD_MS + 1000;
    }
    return this.model;
  }
}
