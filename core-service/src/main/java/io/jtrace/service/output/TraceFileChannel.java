package io.jtrace.service.output;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The file under a {@link TraceFileWriter}: created or emptied at open, then written through the page
 * cache by its {@link FileLog}: a regular file by any number of threads at once, each range at its own
 * position; anything else (a pipe) by one thread at a time, in order.
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
    private final Path file;
    private final boolean positional;
    /** Replaced (under this object's lock) when an interrupted writer closed it; volatile for writers. */
    private volatile FileChannel channel;
    private boolean closed;
    /** What the path named at open (inode and device): a reopen must find the same file there. */
    private final Object fileKey;

    private TraceFileChannel(Path file, FileChannel channel, boolean positional, Object fileKey) {
        this.file = file;
        this.fileKey = fileKey;
        this.channel = channel;
        this.positional = positional;
    }

    /**
     * Creates or truncates {@code file} (a pipe or a device is opened as it is; a pipe only once a reader
     * has it open, see {@link PipeOpening}).
     */
    static TraceFileChannel open(Path file) throws IOException {
        FileChannel channel = PipeOpening.isPipe(file)
                ? PipeOpening.openForWriting(file, PipeOpening.READER_WAIT_MILLIS)
                : FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING);
        try {
            // Read after the open: the path names what was opened (a file created by the open is regular).
            return new TraceFileChannel(file, channel, Files.isRegularFile(file), fileKeyOf(file));
        } catch (IOException | RuntimeException e) {
            // A pipe's reader must see the stream end, not wait for a writer nobody holds.
            channel.close();
            throw e;
        }
    }

    /** A buffer for the writer to fill: direct memory, which the channel writes without copying it first. */
    static ByteBuffer newBuffer(int capacity) {
        return ByteBuffer.allocateDirect(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Writes at {@code position} in a regular file, from any thread: an application thread may be
     * interrupted, and a channel closes when a thread blocked in it is. So the thread's interrupt status
     * is cleared for the write and set again after it, and a channel closed by an interrupt during a
     * write (this thread's or another writer's) is opened again and the write repeated: a write at a
     * position can be repeated without harm. A pipe is written only by the service's threads, in order.
     */
    @Override
    public void write(ByteBuffer buffer, int length, long position) throws IOException {
        ByteBuffer source = buffer.duplicate().clear().limit(length);
        try {
            writeAll(source, position);
        } catch (IOException e) {
            // The source's position is how far the writes got: a pipe's write that returned a part of the
            // bytes before its reader went away, and a file's at positions below that, took them.
            if (source.position() > 0) {
                throw new PartlyWrittenException(source.position(), e);
            }
            throw e;
        }
    }

    private void writeAll(ByteBuffer source, long position) throws IOException {
        if (!positional) {
            while (source.hasRemaining()) {
                channel.write(source);
            }
            return;
        }
        boolean interrupted = Thread.interrupted();
        try {
            while (source.hasRemaining()) {
                FileChannel current = channel;
                try {
                    current.write(source, position + source.position());
                } catch (ClosedChannelException e) {
                    // Closed by an interrupt: this thread's (during the write), or another writer's (during
                    // its write or before this one began). Closed for good: reopenAfter throws.
                    if (e instanceof ClosedByInterruptException) {
                        interrupted = true;
                        Thread.interrupted();
                    }
                    reopenAfter(current);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Opens the file again if {@code closedChannel} is still the one in use, unless it was closed for
     * good; fails if the path no longer names the file opened at first (moved, deleted or replaced:
     * this session's writes must not go into another file).
     */
    private synchronized void reopenAfter(FileChannel closedChannel) throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        if (channel == closedChannel) {
            FileChannel reopened = FileChannel.open(file, StandardOpenOption.WRITE);
            if (fileKey == null || !fileKey.equals(fileKeyOf(file))) {
                reopened.close();
                throw new IOException(file + " is no longer the trace file this session opened");
            }
            channel = reopened;
        }
    }

    private static Object fileKeyOf(Path file) throws IOException {
        return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
    }

    @Override
    public boolean positional() {
        return positional;
    }

    @Override
    public synchronized void close() throws IOException {
        closed = true;
        channel.close();
    }
}
