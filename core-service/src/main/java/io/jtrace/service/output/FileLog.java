package io.jtrace.service.output;

import io.jtrace.service.buffer.FileAppender;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The bytes on their way into a trace file: a ring of direct memory that any number of threads append
 * to at once, without a lock, and that is written into the file in the order the appends reserved their
 * space. Application threads append their own chunks here (see the service's promotion of chunks), the
 * service thread appends what it reads out of its buffers; the file thread, or the service itself when
 * the ring is full or a flush wants everything out, writes it.
 *
 * <p>The protocol, for {@link #tryReserve}, {@link #commit} and {@link #consume}:
 * <ul>
 *   <li><b>Reserve.</b> One CAS on {@link #reservation} takes both the byte range
 *       {@code [position, position + length)} and the next <em>ticket</em>: the two advance together, so
 *       ticket order is byte order. The CAS is made only if the range fits behind {@link #written} (the
 *       file has everything before it) and the ticket's slot is free (behind {@link #consumedTicket}),
 *       both read with acquire: the consumer's release stores of them come after it wrote out, and
 *       cleared, what the range and the slot held a lap ago.</li>
 *   <li><b>Commit.</b> The appender fills its range with plain stores, then stores its length (and its
 *       number of packets) into its ticket's slot with a release store: whoever reads the slot with
 *       acquire sees the range filled.</li>
 *   <li><b>Consume</b> (one thread at a time, under {@link #consumer}). From {@link #consumedTicket},
 *       slot by slot while a slot is committed: the ranges are contiguous, so the committed prefix ends at
 *       the first slot still empty. It is written into the file, the slots cleared with plain stores, and
 *       then {@link #written} and {@link #consumedTicket} advanced with release stores, which publish the
 *       clears and the end of the channel's reads of the range to the next lap's appenders.</li>
 * </ul>
 * An appender that stops between reserve and commit (descheduled) holds back the file behind its range,
 * never another appender: they reserve on until the ring is full, and then application threads give up
 * at once ({@link #tryReserve}) while the service waits ({@link #reserve}).
 *
 * <p>A packet larger than the ring (possible only from the service: a reassembled fragment) goes
 * around it: appends are shut out ({@link #CLOSED}), everything before is written, then the packet is
 * written straight into the file (see {@link #appendPastTheRing}).
 */
final class FileLog implements AutoCloseable {
    /** Bytes the ring holds: 16 of the file writes the file thread makes when it can keep up. */
    static final int CAPACITY = 4 << 20;
    /** Bytes after which an appender wakes the file thread: each write moves this much or more. */
    private static final int WAKE_BYTES = 256 * 1024;
    /** Commit slots: more than the ring can hold appends of whole chunks, so bytes run out first. */
    private static final int SLOTS = 1 << 14;

    /*
     * The reservation word: the position (bytes ever reserved) in its low 44 bits (16 TiB), the ticket
     * modulo 2^19 above it, and the sign bit set while appends are shut out.
     */
    private static final int POSITION_BITS = 44;
    private static final long POSITION_MASK = (1L << POSITION_BITS) - 1;
    private static final long TICKET_MASK = (1L << 19) - 1;
    static final long CLOSED = Long.MIN_VALUE;
    /** {@link #tryReserve}'s answers when it reserved nothing: no room now, or shut out. */
    static final long FULL = FileAppender.FULL;
    static final long SHUT = -2;

    private static final VarHandle RESERVATION;
    private static final VarHandle WRITTEN;
    private static final VarHandle CONSUMED_TICKET;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            RESERVATION = lookup.findVarHandle(FileLog.class, "reservation", long.class);
            WRITTEN = lookup.findVarHandle(FileLog.class, "written", long.class);
            CONSUMED_TICKET = lookup.findVarHandle(FileLog.class, "consumedTicket", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final FileTarget channel;
    private final ByteBuffer ring;
    private final int capacity;
    private final long[] slots = new long[SLOTS];
    /** See the class comment: CAS by appenders, cleared of {@link #CLOSED} only by the shutting thread. */
    @SuppressWarnings("unused")
    private long reservation;
    /** Position up to which the file has everything. Release store by the consumer, acquire by appenders. */
    @SuppressWarnings("unused")
    private long written;
    /** Tickets consumed (not wrapped). Release store by the consumer, acquire by appenders. */
    @SuppressWarnings("unused")
    private long consumedTicket;
    /** One consumer at a time, whichever thread it is; also orders the writes into the channel. */
    private final ReentrantLock consumer = new ReentrantLock();
    /** Packets written into the file (under {@link #consumer}; volatile for readers without it). */
    private volatile long packetsWritten;
    /** The first failed write; afterwards bytes are consumed without being written. Set under the lock. */
    private volatile IOException failure;
    /** Set once, by {@link #close}: the file thread ends. */
    private volatile boolean closed;
    private final Thread fileThread;

    FileLog(FileTarget channel) {
        this(channel, CAPACITY, true);
    }

    /** {@code capacity}: a power of two. Without the file thread ({@code withThread} false): tests. */
    FileLog(FileTarget channel, int capacity, boolean withThread) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two: " + capacity);
        }
        this.channel = channel;
        this.capacity = capacity;
        this.ring = TraceFileChannel.newBuffer(capacity);
        if (withThread) {
            fileThread = new Thread(this::run, "jtrace-file-writer");
            fileThread.setDaemon(true);
            fileThread.start();
        } else {
            fileThread = null;
        }
    }

    /** Bytes reserved so far: what the file will hold once everything appended is written. */
    long position() {
        return (long) RESERVATION.getVolatile(this) & POSITION_MASK;
    }

    long packetsWritten() {
        return packetsWritten;
    }

    /** Bytes one append may take: more goes around the ring ({@link #appendPastTheRing}). */
    int largestAppend() {
        return capacity / 2;
    }

    /**
     * Reserves {@code length} bytes (1 to {@link #largestAppend}) without waiting: the reservation (pass
     * it to {@link #put} and {@link #commit}), or {@link #FULL} when the ring has no room now, or
     * {@link #SHUT} when appends are shut out or the file failed. A reservation must be committed.
     */
    long tryReserve(int length) {
        while (true) {
            long word = (long) RESERVATION.getVolatile(this);
            if (word < 0 || failure != null) {
                return SHUT;
            }
            long position = word & POSITION_MASK;
            long ticket = word >>> POSITION_BITS;
            if (position + length - (long) WRITTEN.getAcquire(this) > capacity
                    || (ticket - (long) CONSUMED_TICKET.getAcquire(this) & TICKET_MASK) >= SLOTS) {
                return FULL;
            }
            long next = (position + length) | ((ticket + 1) & TICKET_MASK) << POSITION_BITS;
            if (RESERVATION.compareAndSet(this, word, next)) {
                return word;
            }
        }
    }

    /**
     * {@link #tryReserve} for the service: when the ring is full it writes what it can itself, and waits
     * for appenders still filling their ranges. Throws if the file failed or was closed.
     */
    long reserve(int length) throws IOException {
        for (int attempt = 0; ; attempt++) {
            long reserved = tryReserve(length);
            if (reserved >= 0) {
                return reserved;
            }
            throwIfFailed();
            if (reserved == SHUT) {
                throw new ClosedChannelException();
            }
            if (!consumeNow()) {
                backOff(attempt);
            }
        }
    }

    /** Copies {@code src[offset, offset + length)} to {@code at} bytes into the reservation. */
    void put(long reservation, int at, byte[] src, int offset, int length) {
        int index = indexOf(reservation, at);
        int first = Math.min(length, capacity - index);
        ring.put(index, src, offset, first);
        if (first < length) {
            ring.put(0, src, offset + first, length - first);
        }
    }

    /** Copies {@code src[offset, offset + length)} (absolute indexes) to {@code at} bytes into the reservation. */
    void put(long reservation, int at, ByteBuffer src, int offset, int length) {
        int index = indexOf(reservation, at);
        int first = Math.min(length, capacity - index);
        ring.put(index, src, offset, first);
        if (first < length) {
            ring.put(0, src, offset + first, length - first);
        }
    }

    /** One byte at {@code at} bytes into the reservation. */
    void put(long reservation, int at, byte value) {
        ring.put(indexOf(reservation, at), value);
    }

    private int indexOf(long reservation, int at) {
        return (int) ((reservation & POSITION_MASK) + at & capacity - 1);
    }

    /**
     * The reservation's {@code length} bytes, holding {@code packets} packets, are filled: release store
     * of its slot (see the class comment). Wakes the file thread each {@link #WAKE_BYTES}.
     */
    void commit(long reservation, int length, int packets) {
        long ticket = reservation >>> POSITION_BITS;
        SLOT.setRelease(slots, (int) (ticket & SLOTS - 1), (long) length | (long) packets << 32);
        long position = reservation & POSITION_MASK;
        if (fileThread != null && position / WAKE_BYTES != (position + length) / WAKE_BYTES) {
            LockSupport.unpark(fileThread);
        }
    }

    /**
     * Writes into the file everything appended before this call, on this thread, waiting for appenders
     * that are still filling their ranges. Throws if a write failed.
     */
    void sync() throws IOException {
        consumeUpTo(ticketsReserved());
        throwIfFailed();
    }

    /**
     * The tickets reserved so far, counted as {@link #consumedTicket} counts them (not wrapped): the
     * consumed count read first, then the reservation word, whose wrapped ticket is at most
     * {@link #SLOTS} ahead of it.
     */
    private long ticketsReserved() {
        long consumed = (long) CONSUMED_TICKET.getAcquire(this);
        long ticket = (long) RESERVATION.getVolatile(this) >>> POSITION_BITS & TICKET_MASK;
        return consumed + (ticket - consumed & TICKET_MASK);
    }

    /** Consumes, on this thread or another, until {@code tickets} are; waits for appenders still filling. */
    private void consumeUpTo(long tickets) {
        for (int attempt = 0; (long) CONSUMED_TICKET.getAcquire(this) < tickets; attempt++) {
            if (!consumeNow()) {
                backOff(attempt);
            }
        }
    }

    /**
     * A packet too large for the ring, from the service thread: shuts appends out (application threads
     * then give up theirs, and go through the service), writes everything reserved before, writes the
     * packet's parts straight into the file, and opens the ring again after them.
     */
    void appendPastTheRing(int packets, ByteBuffer... parts) throws IOException {
        long word;
        do {
            word = (long) RESERVATION.getVolatile(this);
            if (word < 0) {
                throw new ClosedChannelException();
            }
        } while (!RESERVATION.compareAndSet(this, word, word | CLOSED));
        long position = word & POSITION_MASK;
        try {
            sync();
        } finally {
            consumer.lock();
            try {
                for (ByteBuffer part : parts) {
                    position += part.remaining();
                    if (failure == null) {
                        channel.write(part, part.remaining());
                    }
                }
                packetsWritten += packets;
            } catch (IOException e) {
                failure = e;
            } finally {
                // Under the lock, for the next consumer; and before the ring opens, so an appender that
                // sees it open sees the room behind the new position.
                WRITTEN.setRelease(this, position);
                consumer.unlock();
                RESERVATION.setVolatile(this, position | (word & ~POSITION_MASK));
            }
        }
        throwIfFailed();
    }

    /**
     * Shuts appends out for good, writes everything reserved before, closes the file and ends the file
     * thread; throws the first failure, if any. The file is closed even then. Closing again does nothing.
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        // Shut already only by appendPastTheRing, which runs on this same thread and has ended: so this
        // loop always leaves the ring shut for good.
        long word;
        do {
            word = (long) RESERVATION.getVolatile(this);
        } while (word >= 0 && !RESERVATION.compareAndSet(this, word, word | CLOSED));
        closed = true;
        try {
            consumeUpTo(ticketsReserved());
        } finally {
            consumer.lock();
            try {
                channel.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                }
            } finally {
                consumer.unlock();
            }
            if (fileThread != null) {
                LockSupport.unpark(fileThread);
            }
        }
        throwIfFailed();
    }

    void throwIfFailed() throws IOException {
        IOException e = failure;
        if (e != null) {
            throw new IOException("writing the trace file failed: " + e.getMessage(), e);
        }
    }

    /** Wakes the file thread to write the ring out (an appender found it full). */
    void wakeFileThread() {
        if (fileThread != null) {
            LockSupport.unpark(fileThread);
        }
    }

    /** Consumes under the lock, waiting for it; returns whether any slot was consumed. */
    boolean consumeNow() {
        consumer.lock();
        try {
            return consume();
        } finally {
            consumer.unlock();
        }
    }

    /** Under {@link #consumer}: see the class comment. Returns whether any slot was consumed. */
    private boolean consume() {
        long ticket = consumedTicket;
        long start = written;
        long end = start;
        long packets = 0;
        while (true) {
            int index = (int) (ticket & SLOTS - 1);
            long slot = (long) SLOT.getAcquire(slots, index);
            if (slot == 0) {
                break;
            }
            slots[index] = 0;
            end += (int) slot;
            packets += slot >>> 32;
            ticket++;
        }
        if (end == start) {
            return false;
        }
        if (failure == null) {
            try {
                writeRange(start, end);
            } catch (IOException e) {
                failure = e;
            } catch (Throwable t) {
                failure = new IOException(t);
            }
        }
        packetsWritten += packets;
        WRITTEN.setRelease(this, end);
        CONSUMED_TICKET.setRelease(this, ticket);
        return true;
    }

    private void writeRange(long start, long end) throws IOException {
        int from = (int) (start & capacity - 1);
        int length = (int) (end - start);
        int first = Math.min(length, capacity - from);
        channel.write(ring.slice(from, first), first);
        if (first < length) {
            channel.write(ring.slice(0, length - first), length - first);
        }
    }

    /** Spin, then yield, then park in short steps: the wait is for an appender to finish a copy. */
    private static void backOff(int attempt) {
        if (attempt < 32) {
            Thread.onSpinWait();
        } else if (attempt < 64) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
        }
    }

    /** The file thread: consumes whenever an appender wakes it, until closed. */
    private void run() {
        while (!closed) {
            LockSupport.park(this);
            if (consumer.tryLock()) {
                try {
                    if (!closed) {
                        consume();
                    }
                } finally {
                    consumer.unlock();
                }
            }
        }
    }
}
