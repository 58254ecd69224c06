package io.jtrace.agent.trackevent;

import io.jtrace.api.AgentBridge;
import io.jtrace.api.AsyncTrack;
import io.jtrace.producer.DataSourceContext;
import io.jtrace.shm.writer.TraceWriter;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The track_event instance currently running: where writers come from, which categories are on, the
 * pool of shared sequences, and the events it lost without a writer to count them.
 */
final class ActiveSession {
    private final int slot;
    /** The service's id of the session this instance serves (DataSourceConfig.tracing_session_id). */
    private final long tracingSessionId;
    /** Its buffer overwrites chunks nobody read: every chunk must open with its sequence's incremental state. */
    private final boolean restartEachChunk;
    /**
     * The service reads a chunk's "packets need incremental state" flag
     * ({@code DataSourceConfig.needs_incremental_state_by_chunk}): the session's writers flag their chunks
     * instead of each packet. False for an older jtrace daemon, which would pass unflagged packets on
     * after a loss.
     */
    private final boolean needsStateByChunk;
    private final DataSourceContext context;
    private final CategoryFilter filter;
    private final SequencePool pool;
    /**
     * Events lost before any writer saw them (no writer id left, pool busy or closed, a failure of ours
     * outside a packet): they leave no drop marker, so they are counted here. Rare, so a LongAdder.
     */
    private final LongAdder lostWithoutWriter = new LongAdder();
    /** Events dropped by this session's writers that were closed (their final count). */
    private final LongAdder droppedByClosedWriters = new LongAdder();
    /**
     * The highest figure {@link #lostEvents} returned. Its parts are read one after another while threads
     * write and close writers, and each can only miss a drop, never count one twice or count a packet that
     * was not an event (see {@link #lostEvents}). So a reading may fall short of the true count, which
     * only grows, and the highest reading so far is never above it.
     */
    private final AtomicLong highestFigure = new AtomicLong();
    /** Own writers' closes begun and ended (see {@link #closeBegins}); the producer thread waits out the gap at stop. */
    private final AtomicLong closesBegun = new AtomicLong();
    private final AtomicLong closesEnded = new AtomicLong();
    /** At most 1,000 tries 0.1 ms apart: about 100 ms at a session's stop, in the worst case. */
    private static final int SETTLE_ATTEMPTS = 1_000;
    /**
     * Bumped (by the producer thread) when the service asks to clear incremental state; every
     * application thread compares it with its own on its next event (a volatile read) and then starts
     * its sequence's incremental state over.
     */
    private volatile int generation;
    private final AgentBridge bridge;

    ActiveSession(int slot, long tracingSessionId, boolean restartEachChunk, boolean needsStateByChunk, DataSourceContext context,
                  CategoryFilter filter, SequencePool pool, AgentBridge bridge) {
        this.slot = slot;
        this.tracingSessionId = tracingSessionId;
        this.restartEachChunk = restartEachChunk;
        this.needsStateByChunk = needsStateByChunk;
        this.bridge = bridge;
        this.context = context;
        this.filter = filter;
        this.pool = pool;
    }

    /** The session's bit in the categories' masks and its index in every thread's bindings. */
    int slot() {
        return slot;
    }

    long tracingSessionId() {
        return tracingSessionId;
    }

    DataSourceContext context() {
        return context;
    }

    /** Whether its buffer overwrites chunks nobody read, so that every chunk opens with a restart. */
    boolean restartsEachChunk() {
        return restartEachChunk;
    }

    /** A writer for one of the session's sequences (see {@link TraceWriter#restartEachChunk}). */
    TraceWriter newWriter() {
        return newWriter(context, restartEachChunk, needsStateByChunk);
    }

    static TraceWriter newWriter(DataSourceContext context, boolean restartEachChunk, boolean needsStateByChunk) {
        TraceWriter writer = context.newTraceWriter();
        writer.restartEachChunk(restartEachChunk);
        if (needsStateByChunk) {
            // A track_event sequence opens with a clear and restarts after every loss its writer knows of,
            // so its events can leave their NEEDS_INCREMENTAL_STATE flag to the chunk (SmallEventEncoder).
            writer.packetsNeedIncrementalState();
        }
        return writer;
    }

    CategoryFilter filter() {
        return filter;
    }

    SequencePool pool() {
        return pool;
    }

    int generation() {
        return generation;
    }

    /** Only the producer thread calls this, so the non-atomic increment is safe. */
    @SuppressWarnings("NonAtomicOperationOnVolatileField")
    void clearIncrementalState() {
        generation++;
    }

    /** The generation {@code track} was last described in during this session, or -1. */
    int asyncTrackDescribedIn(AsyncTrack track) {
        return AgentBridge.asyncTrackDescribedIn(track, slot, this);
    }

    void asyncTrackDescribed(AsyncTrack track, int generation) {
        bridge.asyncTrackDescribed(track, slot, this, generation);
    }

    void lostWithoutWriter() {
        lostWithoutWriter.increment();
    }

    /** A writer of the session was closed, having dropped {@code droppedEvents} events (its final count). */
    void writerClosed(long droppedEvents) {
        droppedByClosedWriters.add(droppedEvents);
    }

    /**
     * An own writer's close begins: from here until {@link #closeEnds} its count is in neither the open
     * writers' scan nor the closed sum, so {@link #settledLostEvents} waits such a close out.
     */
    void closeBegins() {
        closesBegun.incrementAndGet();
    }

    /** Its count is in the closed sum now (after {@link #writerClosed}). */
    void closeEnds() {
        closesEnded.incrementAndGet();
    }

    /**
     * {@link #lostEvents}, taken while no own writer's close is half done (none in flight when it starts,
     * none begun before it ends), so no writer's drops are missed: the figure a stopped session's trace
     * ends with. Threads close their writers for a stopped session on their next event; should one stay
     * half-way through for {@link #SETTLE_ATTEMPTS} tries (preempted), the last reading is taken as it is.
     */
    long settledLostEvents(LongSupplier droppedByOpenOwnWriters) {
        long lost = 0;
        for (int attempt = 0; attempt < SETTLE_ATTEMPTS; attempt++) {
            // Ended first: a close that began before this read and is still in flight makes begun larger.
            long ended = closesEnded.get();
            long begun = closesBegun.get();
            lost = lostEvents(droppedByOpenOwnWriters);
            if (ended == begun && closesBegun.get() == begun) {
                return lost;
            }
            LockSupport.parkNanos(100_000);
        }
        return lost;
    }

    /**
     * Any thread: events lost so far, dropped by writers (SMB full, failed packets) or lost before reaching
     * one; {@code droppedByOpenOwnWriters} adds up what the own writers still open dropped. Never less than
     * a figure returned before. While the session runs or stops, writers drop and close as this reads:
     *
     * <ul>
     *   <li>The closed writers' sum is read first. A closing writer leaves the open set ({@code
     *       SessionBinding.own} cleared, or the pool's volatile {@code closed} set) before its count joins
     *       that sum, so a sum that holds it happens-after its leaving, and the scan that follows skips it:
     *       a writer closing meanwhile is missed at worst, never counted twice.</li>
     *   <li>An open writer's events are {@link TraceWriter#droppedRecords}: its drops of descriptive
     *       packets (headers, descriptors) are left out by the writer itself, never subtracted after.</li>
     * </ul>
     */
    long lostEvents(LongSupplier droppedByOpenOwnWriters) {
        long closed = droppedByClosedWriters.sum();
        long open = droppedByOpenOwnWriters.getAsLong() + pool.droppedSoFar();
        long now = closed + open + lostWithoutWriter.sum();
        return highestFigure.accumulateAndGet(now, Math::max);
    }

    long lostWithoutWriterCount() {
        return lostWithoutWriter.sum();
    }
}
