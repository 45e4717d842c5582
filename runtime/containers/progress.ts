/**
 * Progress of a daemon stream (pull, build, import): JSON events, one per
 * line. Each readable line goes to `onLine`; an error event fails the whole
 * operation with the daemon's message and the last lines of output.
 */
import type Docker from 'dockerode';

interface ProgressEvent {
  stream?: string;
  status?: string;
  progress?: string;
  id?: string;
  error?: string;
  errorDetail?: { message?: string };
  aux?: { ID?: string };
}

/** Lines of output kept for an error message. */
const TAIL_LINES = 15;

export interface ProgressResult {
  /** The image id an event named last: `aux.ID` of a build, or the `sha256:` status of an import. */
  imageId?: string;
}

const IMAGE_ID = /^sha256:[0-9a-f]{64}$/;

export function followProgress(docker: Docker, stream: NodeJS.ReadableStream, onLine: (line: string) => void = () => {}): Promise<ProgressResult> {
  const tail: string[] = [];
  let imageId: string | undefined;
  let failure: string | undefined;
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (err: Error | null) => {
        if (err) return reject(new Error(withTail(err.message, tail), { cause: err }));
        if (failure) return reject(new Error(withTail(failure, tail)));
        resolve({ imageId });
      },
      (event: ProgressEvent) => {
        if (event.aux?.ID) imageId = event.aux.ID;
        else if (event.status && IMAGE_ID.test(event.status)) imageId = event.status;
        if (event.error || event.errorDetail?.message) {
          failure = event.errorDetail?.message ?? event.error;
          return;
        }
        const text = event.stream ?? [event.id, event.status, event.progress].filter(Boolean).join(' ');
        for (const line of text.split('\n')) {
          const trimmed = line.trimEnd();
          if (!trimmed) continue;
          tail.push(trimmed);
          if (tail.length > TAIL_LINES) tail.shift();
          onLine(trimmed);
        }
      },
    );
  });
}

function withTail(message: string, tail: readonly string[]): string {
  return tail.length === 0 ? message : `${message}\n  last output:\n${tail.map((l) => `    ${l}`).join('\n')}`;
}
