package io.jtrace.service.output;

import io.jtrace.service.buffer.FileAppender;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The bytes on their way into a trace file: a ring of direct memory that any number of threads append
 * to at once, without a lock, each append at the file position it took when it reserved its space (so
 * one thread's appends are in the file in its order). Application threads append their own chunks
 * here (see the service's promotion of chunks), the service thread appends what it reads out of its
 * buffers; the file thread, or any appender when the ring is full or a flush wants everything out,
 * writes it.
 *
 * <p>The protocol, for {@link #tryReserve}, {@link #commit} and {@link #consumeNow}:
 * <ul>
 *   <li><b>Reserve.</b> One CAS on {@link #reservation} takes both the byte range
 *       {@code [position, position + length)} of the ring and the next <em>ticket</em>: the two advance
 *       together, so ticket order is ring order; then the range's file position is taken from
 *       {@link FileWrites}. The CAS is made only if the range fits behind {@link #written} (the ring
 *       was written out up to there) and the ticket's slot is free (behind {@link #consumedTicket}),
 *       both read with acquire: the consumer's release stores of them come after it wrote out, and
 *       cleared, what the range and the slot held a lap ago.</li>
 *   <li><b>Commit.</b> The appender fills its range with plain stores, then stores its length (and its
 *       number of packets) into its ticket's slot with a release store: whoever reads the slot with
 *       acquire sees the range filled.</li>
 *   <li><b>Write out</b> ({@link #consumeNow}: the file thread, a flush, the close; or, only at the
 *       ring's front, {@link #consumeFront}: the service or an appender that found the ring full). Each
 *       committed range not written yet is claimed by one thread and written at
 *       its own file position, runs of neighbours in one write ({@link CommitSlots} has the slot's
 *       states): a range still being filled leaves a hole that a pass after its commit fills, so an
 *       appender descheduled between reserve and commit delays only its own bytes. The written prefix
 *       is handed back under {@link #consumer} (held for that walk only): its slots emptied, then
 *       {@link #written} and {@link #consumedTicket} advanced with release stores, which publish the
 *       emptied slots and the end of the writes' reads of the ring to the next lap's appenders. A pipe,
 *       which cannot be written at a position, is written under the lock, in order, up to the first
 *       range still being filled.</li>
 * </ul>
 * An appender descheduled between reserve and commit holds back its own range and, a lap later, the
 * reuse of the ring behind it, never another appender's bytes: the others append on until the ring is
 * full, then application threads write their bytes into the file past the ring ({@link FileWrites#reserveDirect};
 * a pipe, which cannot take that, keeps them waiting a little, then they give up), while the service
 * waits ({@link #reserve}).
 * File positions are taken from {@link FileWrites} when space is reserved, by ranges of the ring and
 * writes past it alike. Until a hole is filled the file holds zeros there; a flush ({@link #sync}) and
 * the close wait for it.
 *
 * <p>A packet larger than the ring (possible only from the service: a reassembled fragment) goes
 * around it: appends are shut out ({@link #CLOSED}), everything before is written, then the packet is
 * written straight into the file (see {@link #appendPastTheRing}).
 */
final class FileLog implements AutoCloseable {
    /** Bytes the ring holds: 16 of the file writes the file thread makes when it can keep up. */
    static final int CAPACITY = 4 << 20;

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
    private static final VarHandle WRITTEN_POSITION;
    private static final VarHandle CONSUMED_TICKET;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            RESERVATION = lookup.findVarHandle(FileLog.class, "reservation", long.class);
            WRITTEN_POSITION = lookup.findVarHandle(FileLog.class, "written", long.class);
            CONSUMED_TICKET = lookup.findVarHandle(FileLog.class, "consumedTicket", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final FileWrites file;
    private final RingBytes ring;
    private final CommitSlots slots;
    /** See the class comment: CAS by appenders, cleared of {@link #CLOSED} only by the shutting thread. */
    @SuppressWarnings("unused")
    private long reservation;
    /** Ring position up to which the ring is written out. Release store by the consumer, acquire by appenders. */
    @SuppressWarnings("unused")
    private long written;
    /** Tickets consumed (not wrapped). Release store by the consumer, acquire by appenders. */
    @SuppressWarnings("unused")
    private long consumedTicket;
    /** Held to hand the written prefix back, and (a pipe) across a write, which it keeps in order. */
    private final ReentrantLock consumer = new ReentrantLock();
    /** Set once, by {@link #close}: the file thread ends. */
    private volatile boolean closed;
    private final FileThread fileThread;

    FileLog(FileTarget channel) {
        this(channel, CAPACITY, true);
    }

    /** {@code capacity}: a power of two. Without the file thread ({@code withThread} false): tests. */
    FileLog(FileTarget channel, int capacity, boolean withThread) {
        this.ring = new RingBytes(capacity);
        this.slots = new CommitSlots(capacity);
        this.file = new FileWrites(channel);
        if (withThread) {
            fileThread = new FileThread(this);
            fileThread.start();
        } else {
            fileThread = null;
        }
    }

    boolean isClosed() {
        return closed;
    }

    /** Bytes reserved in the ring and not written out yet (some may still be being copied in). */
    long unwrittenBytes() {
        return ((long) RESERVATION.getVolatile(this) & POSITION_MASK) - (long) WRITTEN_POSITION.getAcquire(this);
    }

    /** Bytes reserved so far: what the file will hold once everything appended is written. */
    long position() {
        return file.position();
    }

    long packetsWritten() {
        return file.packetsWritten();
    }

    /** The file under the ring: where an appender that found the ring full writes past it. */
    FileWrites file() {
        return file;
    }

    /** Bytes one append may take: more goes around the ring ({@link #appendPastTheRing}). */
    int largestAppend() {
        return ring.capacity() / 2;
    }

    /**
     * Reserves {@code length} bytes (1 to {@link #largestAppend}) without waiting: the reservation (pass
     * it to {@link #put} and {@link #commit}), or {@link #FULL} when the ring has no room now, or
     * {@link #SHUT} when appends are shut out or the file failed. A reservation must be committed.
     */
    long tryReserve(int length) {
        while (true) {
            long word = (long) RESERVATION.getVolatile(this);
            if (word < 0 || file.failed()) {
                // Shut for a packet larger than the ring only for a while: full, not shut, for now.
                return closed || file.failed() ? SHUT : FULL;
            }
            long position = word & POSITION_MASK;
            long ticket = word >>> POSITION_BITS;
            if (position + length - (long) WRITTEN_POSITION.getAcquire(this) > ring.capacity()
                    || (ticket - (long) CONSUMED_TICKET.getAcquire(this) & TICKET_MASK) >= slots.count()) {
                return FULL;
            }
            long next = (position + length) | ((ticket + 1) & TICKET_MASK) << POSITION_BITS;
            if (RESERVATION.compareAndSet(this, word, next)) {
                // The slot is this appender's until its commit: its file position is taken after the ring's
                // space (a thread descheduled in between only reorders ranges of different appenders;
                // one appender's ranges still follow each other in the file).
                slots.reserved(ticket, position, file.take(length));
                return word;
            }
        }
    }

    /**
     * {@link #tryReserve} for the service: when the ring is full it writes the committed ranges at its
     * front itself, and waits for an appender still filling the first. Throws if the file failed or closed.
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
            if (!consumeFront()) {
                CopyWait.pause(attempt);
            }
        }
    }

    /** Copies {@code src[offset, offset + length)} to {@code at} bytes into the reservation. */
    void put(long reservation, int at, byte[] src, int offset, int length) {
        ring.put((reservation & POSITION_MASK) + at, src, offset, length);
    }

    /** Copies {@code src[offset, offset + length)} (absolute indexes) to {@code at} bytes into the reservation. */
    void put(long reservation, int at, ByteBuffer src, int offset, int length) {
        ring.put((reservation & POSITION_MASK) + at, src, offset, length);
    }

    /**
     * The reservation's {@code length} bytes, holding {@code packets} packets, are filled: release store
     * of its slot (see the class comment). Wakes the file thread, if it sleeps, each
     * {@link FileThread#WAKE_BYTES}.
     */
    void commit(long reservation, int length, int packets) {
        long position = reservation & POSITION_MASK;
        slots.commit(reservation >>> POSITION_BITS, length, packets);
        if (fileThread != null
                && position / FileThread.WAKE_BYTES != (position + length) / FileThread.WAKE_BYTES) {
            fileThread.wakeIfAsleep();
        }
    }

    /**
     * Writes into the file everything appended before this call, on this thread, waiting for appenders
     * that are still filling their ranges and for writes past the ring under way (not for those begun
     * after it: see {@link FileWrites#drainDirect}). Throws if a write failed.
     */
    void sync() throws IOException {
        consumeUpTo(ticketsReserved());
        file.drainDirect();
        throwIfFailed();
    }

    /**
     * The tickets reserved so far, counted as {@link #consumedTicket} counts them (not wrapped): the
     * consumed count read first, then the reservation word, whose wrapped ticket is at most
     * {@link CommitSlots#count} ahead of it.
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
                CopyWait.pause(attempt);
            }
        }
    }

    /**
     * A packet too large for the ring, from the service thread: shuts appends out (application threads
     * then write past the ring or give up theirs), writes everything reserved before, writes the
     * packet's parts straight into the file after it, and opens the ring again.
     */
    void appendPastTheRing(int packets, ByteBuffer... parts) throws IOException {
        long word;
        do {
            word = (long) RESERVATION.getVolatile(this);
            if (word < 0) {
                throw new ClosedChannelException();
            }
        } while (!RESERVATION.compareAndSet(this, word, word | CLOSED));
        try {
            sync();
        } finally {
            int total = 0;
            for (ByteBuffer part : parts) {
                total += part.remaining();
            }
            long position = file.take(total);
            consumer.lock();
            try {
                for (ByteBuffer part : parts) {
                    int length = part.remaining();
                    file.write(part, length, position);
                    position += length;
                }
                file.addPackets(packets);
            } finally {
                consumer.unlock();
                RESERVATION.setVolatile(this, word);
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
                file.close();
            } finally {
                consumer.unlock();
            }
            if (fileThread != null) {
                fileThread.wake();
            }
        }
        throwIfFailed();
    }

    void throwIfFailed() throws IOException {
        file.throwIfFailed();
    }

    /**
     * An appender found the ring full: writes the front itself (the file thread may wait for a CPU behind
     * the threads that fill the ring), or else wakes the file thread. Returns whether it wrote or handed
     * back anything.
     */
    boolean makeRoom() {
        if (file.positional() && consumeFront()) {
            return true;
        }
        wakeFileThread();
        return false;
    }

    /** Wakes the file thread to write the ring out. */
    private void wakeFileThread() {
        if (fileThread != null) {
            fileThread.wake();
        }
    }

    /**
     * Writes out what is committed, on this thread: at once with others in a file written at positions,
     * else one at a time under the lock. Returns whether anything was written or handed back.
     */
    boolean consumeNow() {
        return consume(false);
    }

    /**
     * {@link #consumeNow} for a thread that needs room: the committed ranges at the ring's front, up to
     * the first it cannot claim. Space comes back in ticket order, so those past it free nothing yet.
     */
    private boolean consumeFront() {
        return consume(true);
    }

    private boolean consume(boolean frontOnly) {
        if (file.positional()) {
            boolean wrote = writeClaimedRanges(frontOnly);
            return advanceWrittenPrefix() || wrote;
        }
        consumer.lock();
        try {
            return writeCommittedPrefix();
        } finally {
            consumer.unlock();
        }
    }

    /**
     * A regular file: claims each committed range not claimed yet ({@link CommitSlots#tryClaim}),
     * writes each run of claimed ranges that are next to each other in the file with one write at their
     * position, then marks them written. A slot is claimed by what it holds, not by ticket: one of a
     * later lap (this scan's tickets handed back by another thread meanwhile) is written at its own
     * positions all the same. So a run goes on only while its ranges are next to each other both in
     * the file and in the ring: a later lap's range can take the file position next to an earlier
     * lap's neighbour (whose appender took its file position late), never its ring position. With
     * {@code frontOnly} it stops at the first range it cannot claim (see {@link #consumeFront}).
     */
    private boolean writeClaimedRanges(boolean frontOnly) {
        long ticket = (long) CONSUMED_TICKET.getAcquire(this);
        long end = ticketsReserved();
        long runFirst = ticket;
        long runStart = 0;
        long runEnd = -1;
        long runRingEnd = -1;
        boolean wrote = false;
        for (; ticket < end; ticket++) {
            long slot = slots.tryClaim(ticket);
            if (slot == 0) {
                writeRun(runFirst, ticket, runStart, runEnd);
                runEnd = -1;
                if (frontOnly) {
                    break;
                }
                continue;
            }
            long start = slots.filePosition(ticket);
            long ringStart = slots.ringPosition(ticket);
            if (start != runEnd || ringStart != runRingEnd) {
                writeRun(runFirst, ticket, runStart, runEnd);
                runFirst = ticket;
                runStart = start;
            }
            runEnd = start + CommitSlots.length(slot);
            runRingEnd = ringStart + CommitSlots.length(slot);
            wrote = true;
        }
        writeRun(runFirst, ticket, runStart, runEnd);
        return wrote;
    }

    /**
     * Writes the claimed run of tickets {@code [first, end)}, file positions {@code [start, stop)}, and
     * marks its slots written, whatever the write threw (an application thread may be deep in its
     * stack): a slot left claimed would have every flush and the close wait for it forever. Nothing
     * when {@code stop} is -1 (no run).
     */
    private void writeRun(long first, long end, long start, long stop) {
        if (stop < 0) {
            return;
        }
        try {
            ring.writeTo(file, slots.ringPosition(first), (int) (stop - start), start);
        } catch (Throwable t) {
            file.fail(t);
            throw t;
        } finally {
            long packets = 0;
            for (long ticket = first; ticket < end; ticket++) {
                packets += slots.markWritten(ticket);
            }
            file.addPackets(packets);
        }
    }

    /**
     * Hands back the prefix of written ranges (see the class comment), if no other thread is doing so:
     * the lock is held only for this walk, never across a write.
     */
    private boolean advanceWrittenPrefix() {
        if (!consumer.tryLock()) {
            return false;
        }
        try {
            long first = consumedTicket;
            long end = ticketsReserved();
            long ticket = first;
            long position = written;
            for (long length; ticket < end && (length = slots.takeWritten(ticket)) >= 0; ticket++) {
                position += length;
            }
            return handBack(first, ticket, position);
        } finally {
            consumer.unlock();
        }
    }

    /**
     * A pipe, under {@link #consumer}: writes the committed prefix (up to the first range still being
     * filled) in one write, then hands it back. Returns whether anything was.
     */
    private boolean writeCommittedPrefix() {
        long first = consumedTicket;
        long end = ticketsReserved();
        long ticket = first;
        long start = written;
        long position = start;
        long packets = 0;
        for (long slot; ticket < end && (slot = slots.takeCommitted(ticket)) != 0; ticket++) {
            position += CommitSlots.length(slot);
            packets += CommitSlots.packets(slot);
        }
        if (ticket != first) {
            // A pipe is written in order: the position (read after the slot's acquire) only names the place.
            ring.writeTo(file, start, (int) (position - start), slots.filePosition(first));
            file.addPackets(packets);
        }
        return handBack(first, ticket, position);
    }

    /**
     * Tickets {@code [first, ticket)} are written and their slots empty: release stores of the ring's
     * written position and the consumed count, for appenders reusing the space and the slots.
     */
    private boolean handBack(long first, long ticket, long ringPosition) {
        if (ticket == first) {
            return false;
        }
        WRITTEN_POSITION.setRelease(this, ringPosition);
        CONSUMED_TICKET.setRelease(this, ticket);
        return true;
    }
}
