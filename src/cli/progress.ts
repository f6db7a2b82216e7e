/** Apply progress on stderr: a live line on a terminal, otherwise one line per finished call. */
import { neutralizeWorkflowCommands } from '../core/text.js';
import type { Progress } from '../ops/apply/workflow.js';
import type { OutputStream } from './io.js';

/**
 * `stream` is where a live line is drawn when it is a terminal; undefined (several environments
 * applying at once, whose lines `writeLine` names): always one line per call.
 */
export function progressReporter(
  stream: OutputStream | undefined,
  writeLine: (line: string) => void,
): Progress {
  let live = false;
  return {
    onCall(event) {
      const what = `${event.operation} ${event.objects} ${event.kind}${event.objects === 1 ? '' : 's'}`;
      if (stream?.isTTY) {
        live = true;
        // Written past cli/output.ts, so through its CI-log guard here (a terminal can be a CI log too).
        stream.write(
          neutralizeWorkflowCommands(`\r\u001b[2Kapplying ${event.finished}/${event.total} ... (${what})`),
        );
      } else {
        writeLine(`${what}: ${event.status} [${event.finished}/${event.total}]`);
      }
    },
    finish() {
      if (live) stream?.write('\r\u001b[2K');
    },
  };
}
