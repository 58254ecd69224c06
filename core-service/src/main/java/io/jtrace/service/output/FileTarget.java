package io.jtrace.service.output;

import java.io.IOException;
import java.nio.ByteBuffer;

/** Where a {@link FileLog} writes: a trace file ({@link TraceFileChannel}), or memory in tests. */
interface FileTarget extends AutoCloseable {
    /**
     * Writes {@code buffer}'s [0, {@code length}) at file position {@code position}. A target that is not
     * {@link #positional} is written in order, by one thread at a time: the position only names the place.
     * A write that fails after the file took some of its bytes throws {@link PartlyWrittenException},
     * which says how many.
     */
    void write(ByteBuffer buffer, int length, long position) throws IOException;

    /** Whether {@link #write} may be given any position (a regular file), not only the next (a pipe). */
    boolean positional();

    @Override
    void close() throws IOException;
}
