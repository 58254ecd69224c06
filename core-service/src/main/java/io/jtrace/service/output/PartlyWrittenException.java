package io.jtrace.service.output;

import java.io.IOException;

/**
 * A write to a trace file that failed after the file took some of its bytes: a pipe whose reader went
 * away during a write that had already put bytes into it, a disk that filled part of the way. Those
 * bytes are in the file (or were handed to the pipe's reader), so they count as written.
 */
final class PartlyWrittenException extends IOException {
    private final long written;

    PartlyWrittenException(long written, IOException cause) {
        super(cause.getMessage(), cause);
        this.written = written;
    }

    /** The bytes of the failed write the file took before it failed. */
    long written() {
        return written;
    }
}
