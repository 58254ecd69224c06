package io.jtrace.agent.trackevent;

import io.jtrace.api.AgentBridge;
import io.jtrace.api.AsyncTrack;
import io.jtrace.producer.DataSourceContext;
import io.jtrace.shm.writer.TraceWriter;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

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
    private final DataSourceContext context;
    private final CategoryFilter filter;
    private final SequencePool pool;
    /**
     * Events lost before any writer saw them (no writer id left, pool busy or closed, a failure of ours
     * outside a packet): they leave no drop marker, so they are counted here. Rare, so a LongAdder.
     */
    private final LongAdder lostWithoutWriter = new LongAdder();
    /** Packets dropped by this session's writers that were closed (their final count). */
    private final LongAdder droppedByClosedWriters = new LongAdder();
    /** Of all packets dropped, those that were not events (sequence headers, track descriptors). */
    private final LongAdder nonEventDrops = new LongAdder();
    /**
     * The highest live figure {@link #lostEventsSoFar} returned. Its parts are read one after another
     * while threads write and close writers, and every interleaving of those reads can only miss drops,
     * never count one twice: a closing writer leaves the open set before its count joins the closed sum,
     * which is read first, and a dropped non-event joins {@link #nonEventDrops}, read last, only after its
     * writer counted the drop. So a reading may fall short of the true count, which only grows, and the
     * highest reading so far is never above it.
     */
    private final AtomicLong highestLiveFigure = new AtomicLong();
    /**
     * Bumped (by the producer thread) when the service asks to clear incremental state; every
     * application thread compares it with its own on its next event (a volatile read) and then starts
     * its sequence's incremental state over.
     */
    private volatile int generation;
    private final AgentBridge bridge;

    ActiveSession(int slot, long tracingSessionId, boolean restartEachChunk, DataSourceContext context,
                  CategoryFilter filter, SequencePool pool, AgentBridge bridge) {
        this.slot = slot;
        this.tracingSessionId = tracingSessionId;
        this.restartEachChunk = restartEachChunk;
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
        return newWriter(context, restartEachChunk);
    }

    static TraceWriter newWriter(DataSourceContext context, boolean restartEachChunk) {
        TraceWriter writer = context.newTraceWriter();
        writer.restartEachChunk(restartEachChunk);
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

    void writerClosed(long droppedPackets) {
        droppedByClosedWriters.add(droppedPackets);
    }

    /** {@code packets} that were not events (headers, descriptors) were dropped by a writer. */
    void nonEventsDropped(long packets) {
        nonEventDrops.add(packets);
    }

    /**
     * Events lost: dropped by writers (SMB full, failed packets), less the dropped packets that were not
     * events, plus those lost before reaching a writer. {@code droppedByOpenWriters} are the drops of
     * writers still open (owned by live threads).
     */
    long lostEvents(long droppedByOpenWriters) {
        return droppedByClosedWriters.sum() + droppedByOpenWriters - nonEventDrops.sum() + lostWithoutWriter.sum();
    }

    /**
     * Any thread, while the session runs: {@link #lostEvents} with the pool's writers still open, for
     * the control surfaces' live figure. Never less than a figure returned before (a thread that ended
     * between two of the reads would otherwise vanish from it for a moment; see {@link #highestLiveFigure}).
     */
    long lostEventsSoFar(long droppedByOpenOwnWriters) {
        long now = Math.max(0, lostEvents(droppedByOpenOwnWriters + pool.droppedSoFar()));
        return highestLiveFigure.accumulateAndGet(now, Math::max);
    }

    long lostWithoutWriterCount() {
        return lostWithoutWriter.sum();
    }
}
