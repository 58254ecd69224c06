package io.jtrace.service.output;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The file under a {@link TraceFileWriter}: created or emptied at open, then appended to through the
 * page cache by its {@link FileLog}, one write at a time.
 *
 * <p>Why not direct I/O (O_DIRECT), as earlier versions did: a direct write waits for the device, and
 * a thread that waits has to be scheduled again. Under four flooding threads on two cores each 256 KiB
 * direct write took 0.50 ms on average (1.3 GB in 4,821 writes), so the file took at most 520 MB/s and
 * the service waited 2.3 s of 3 s for it while the shared memory buffer overflowed; through the page
 * cache the same writes took 0.06 ms (2.1 GB in 8,030 writes) and no event was lost
 * (benchmarks/README.md). Direct I/O had been chosen to spare the service thread the copy into the page
 * cache; that copy is now made on the file thread, beside the service, as JFR's own recorder
 * thread makes it.
 */
final class TraceFileChannel implements FileTarget {
    private final FileChannel channel;

    private TraceFileChannel(FileChannel channel) {
        this.channel = channel;
    }

    /** Creates or truncates {@code file} (a pipe or a device is opened as it is). */
    static TraceFileChannel open(Path file) throws IOException {
        return new TraceFileChannel(FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING));
    }

    /** A buffer for the writer to fill: direct memory, which the channel writes without copying it first. */
    static ByteBuffer newBuffer(int capacity) {
        return ByteBuffer.allocateDirect(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public void write(ByteBuffer buffer, int length) throws IOException {
        ByteBuffer source = buffer.duplicate().clear().limit(length);
        while (source.hasRemaining()) {
            channel.write(source);
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
