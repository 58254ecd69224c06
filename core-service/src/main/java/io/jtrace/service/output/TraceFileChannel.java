package io.jtrace.service.output;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The file under a {@link TraceFileWriter}, written with direct I/O (O_DIRECT) where its file system
 * allows it, else through the page cache.
 *
 * <p>Why direct: copying a streamed trace into the page cache was most of what the service thread
 * spent per byte. Under a two-thread flood 54 % of its CPU samples were in the kernel's
 * {@code copy_folio_from_iter_atomic}, and {@code dd} on this machine's ext4 spends 0.5-1.7 s of
 * system time per GB written through the page cache against 0.19 s with {@code oflag=direct}; a trace
 * carries about twice the bytes per event of a JFR recording, so that copy was what kept two and four
 * flooding threads below JFR's rate (benchmarks/README.md). A trace file is written once, in order,
 * and read later, so it gains nothing from the page cache.
 *
 * <p>Direct I/O writes whole blocks from block-aligned memory at block-aligned positions. The writer
 * keeps its buffer aligned ({@link #newBuffer}), hands over whole blocks ({@link #writeBlocks}) and keeps
 * the rest. To make that rest visible ({@link #writeTail}) it goes out through a second, ordinary file
 * descriptor, exactly as long as it is: the file never shows padding, even for an instant, and a process
 * killed right after leaves it in the page cache, which the kernel writes. The next direct write starts
 * at that same block again; the kernel writes the cached copy back and drops it first, once a period. A
 * file system that refuses direct I/O (ramfs, a pipe), at open or at the first write, gets ordinary
 * writes instead, with an alignment of one byte, so nothing is ever held back.
 */
final class TraceFileChannel implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TraceFileChannel.class);
    /** A file store reporting a larger block (or one that is not a power of two) is written through the page cache. */
    private static final int MAX_ALIGNMENT = 64 * 1024;

    private final Path file;
    private FileChannel channel;
    /** With direct I/O: an ordinary descriptor of the same file for the partial last block, opened at its first use. */
    private FileChannel tailChannel;
    /** Every write's position, length and memory address are multiples of this: the block size, or 1. */
    private int alignment;
    /** Where the next write goes: the end of what was written in whole blocks (a tail's block is rewritten). */
    private long position;
    /** A direct write has succeeded: from then on a failed write is an error, not direct I/O refused. */
    private boolean directWriteDone;

    private TraceFileChannel(Path file, FileChannel channel, int alignment) {
        this.file = file;
        this.channel = channel;
        this.alignment = alignment;
    }

    /** Creates or truncates {@code file}; direct I/O when its file system takes it. */
    static TraceFileChannel open(Path file) throws IOException {
        return open(file, 0);
    }

    /**
     * With the block size given (0: the file store's): tests pass one smaller than the file system's,
     * which the JDK refuses at the first write, as some file systems refuse direct writes they accepted
     * at open.
     */
    static TraceFileChannel open(Path file, int givenBlockSize) throws IOException {
        // Created (or emptied) through the page cache first: the file store can then be asked its block.
        FileChannel buffered = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        int blockSize = givenBlockSize > 0 ? givenBlockSize : directBlockSize(file);
        if (blockSize > 1) {
            FileChannel direct;
            try {
                direct = DirectOpen.open(file);
            } catch (IOException | UnsupportedOperationException | LinkageError e) {
                // A file system without O_DIRECT (EINVAL), a pipe, or a runtime without jdk.unsupported.
                LOG.debug("jtrace: {} cannot be written with direct I/O; writing it through the page cache", file, e);
                return new TraceFileChannel(file, buffered, 1);
            }
            try {
                buffered.close();
            } catch (IOException e) {
                direct.close();
                throw e;
            }
            return new TraceFileChannel(file, direct, blockSize);
        }
        return new TraceFileChannel(file, buffered, 1);
    }

    /** The file store's block size if direct I/O can be tried with it, else 1. */
    private static int directBlockSize(Path file) {
        try {
            long size = Files.getFileStore(file).getBlockSize();
            return size > 1 && size <= MAX_ALIGNMENT && Long.bitCount(size) == 1 ? (int) size : 1;
        } catch (IOException | UnsupportedOperationException e) {
            return 1;
        }
    }

    /** Whether writes bypass the page cache. */
    boolean direct() {
        return alignment > 1;
    }

    /**
     * A buffer a writer may hand to this channel: direct memory aligned to the blocks, with room for
     * {@code capacity} bytes plus the partial block a writer keeps between writes.
     */
    ByteBuffer newBuffer(int capacity) {
        int align = Math.max(alignment, 1);
        return ByteBuffer.allocateDirect(capacity + 2 * align).alignedSlice(align)
                .limit(capacity + align).slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Writes {@code buffer}'s bytes [0, {@code length}) rounded down to whole blocks (all of them
     * without direct I/O) after what was written before; returns how many it wrote. The caller keeps
     * the rest at the buffer's start for the next write.
     */
    int writeBlocks(ByteBuffer buffer, int length) throws IOException {
        int whole = length - length % alignment;
        if (whole > 0) {
            write(buffer, 0, whole);
            position += whole;
        }
        if (whole < length && !direct()) {
            // The write above fell back from direct I/O: nothing is held back any more.
            write(buffer, whole, length - whole);
            position += length - whole;
            return length;
        }
        return whole;
    }

    /**
     * Makes {@code buffer}'s [0, {@code length}), less than a block, visible after what was written in
     * whole blocks, through the ordinary descriptor: the file ends exactly there. The position stays at
     * that block, which the next {@link #writeBlocks} writes again, in full. The file only grows: the
     * next tail ends after this one.
     */
    void writeTail(ByteBuffer buffer, int length) throws IOException {
        if (length == 0) {
            // Always so without direct I/O: writeBlocks leaves nothing behind.
            return;
        }
        if (tailChannel == null) {
            tailChannel = FileChannel.open(file, StandardOpenOption.WRITE);
        }
        ByteBuffer source = buffer.duplicate().clear().limit(length);
        long at = position;
        while (source.hasRemaining()) {
            at += tailChannel.write(source, at);
        }
    }

    /**
     * Writes {@code buffer}'s [{@code from}, {@code from + length}) at {@link #position} +
     * {@code from}: positioned with direct I/O (a tail's block is written again), appended otherwise,
     * which is the same place (the channel's own position follows the writes) and also works on a pipe.
     */
    private void write(ByteBuffer buffer, int from, int length) throws IOException {
        ByteBuffer source = buffer.duplicate().clear().position(from).limit(from + length);
        try {
            long at = position + from;
            while (source.hasRemaining()) {
                at += direct() ? channel.write(source, at) : channel.write(source);
            }
            directWriteDone |= direct();
        } catch (ClosedChannelException e) {
            throw e;
        } catch (IOException e) {
            if (!direct() || directWriteDone) {
                throw e;
            }
            // Some file systems accept O_DIRECT at open and refuse the writes (EINVAL); the JDK refuses
            // a write not aligned as the file system needs. Either shows at the first write, of which
            // nothing counts: it goes again, whole, through the page cache, and so does all that follows.
            LOG.debug("jtrace: direct I/O to {} failed; writing it through the page cache", file, e);
            FileChannel buffered = FileChannel.open(file, StandardOpenOption.WRITE);
            channel.close();
            channel = buffered;
            channel.position(position + from);
            alignment = 1;
            write(buffer, from, length);
        }
    }

    @Override
    public void close() throws IOException {
        try (FileChannel tail = tailChannel) {
            channel.close();
        }
    }
}
