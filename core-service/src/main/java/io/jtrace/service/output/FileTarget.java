package io.jtrace.service.output;

import java.io.IOException;
import java.nio.ByteBuffer;

/** Where a {@link FileLog} writes: a trace file ({@link TraceFileChannel}), or memory in tests. */
interface FileTarget extends AutoCloseable {
    /** Appends {@code buffer}'s [0, {@code length}) after what was written before. */
    void write(ByteBuffer buffer, int length) throws IOException;

    @Override
    void close() throws IOException;
}
