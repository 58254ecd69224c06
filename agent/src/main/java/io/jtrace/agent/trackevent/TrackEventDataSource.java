package io.jtrace.agent.trackevent;

import io.jtrace.agent.apibind.ApiCopies;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.producer.tracks.SequenceHeader;
import io.jtrace.api.AgentBridge;
import io.jtrace.api.Category;
import io.jtrace.api.spi.EventData;
import io.jtrace.api.spi.TrackEventBackend;
import io.jtrace.producer.DataSource;
import io.jtrace.producer.DataSourceContext;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.writer.TraceWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code track_event} data source: the backend of {@link io.jtrace.api.TrackEvent}. Every event
 * goes on its thread's track; names and categories are interned per sequence.
 *
 * <h2>Which sequence a thread writes</h2>
 * A platform thread gets a sequence of its own (its own {@link TraceWriter}: no atomic operation per
 * event) while the owned budget ({@link OwnedSequences}) has room; every other thread — every virtual
 * thread, and platform threads beyond the budget — claims a sequence of the session's
 * {@link SequencePool} for each event. Each own sequence keeps one SMB chunk for as long as its thread
 * lives, so the budget (a quarter of the SMB's small chunks) bounds the small chunks idle threads can
 * pin, and the arbiter's bound on whole pages ({@code ChunkArbiter.tryHoldPageChunk}: a quarter of
 * them) the pages; threads beyond the budget cost a CAS per event instead of a chunk. Own sequences of threads that have
 * ended are closed by the reaper every {@link #REAP_PERIOD_MS} ms, which commits their last chunk,
 * retires their sequence and frees their place in the budget.
 *
 * <h2>Several sessions</h2>
 * Up to {@link #MAX_SESSIONS} sessions run at once, each in a slot with its own category filter. A
 * category's {@code sessionMask} (set by the producer thread) has a bit per slot that enables it; an
 * event goes to every session whose bit is set, through the thread's {@link SessionBinding} for that
 * slot. A further session is refused with a warning.
 *
 * <p>Nothing thrown in here reaches the application: an event that cannot be written is counted as
 * lost ({@link ActiveSession#lostEvents}), and the session's total loss is written into the trace at
 * stop (a counter track, {@link #LOST_EVENTS_TRACK}) and logged when not zero.
 */
public final class TrackEventDataSource implements DataSource, TrackEventBackend {
    public static final String NAME = "track_event";
    /** Name of the counter track that holds the number of events the session lost, written at stop. */
    public static final String LOST_EVENTS_TRACK = "jtrace: lost track events";
    static final long REAP_PERIOD_MS = 100;
    private static final Logger LOG = LoggerFactory.getLogger(TrackEventDataSource.class);

    private final ProcessTrack process;
    private final EventPackets packets;
    private final ThreadLocal<ThreadState> threads;
    /** What this source changes the API's categories and async tracks with. */
    private final AgentBridge bridge;
    /** Sessions served at once; a category's session mask has a bit per slot. */
    public static final int MAX_SESSIONS = AgentBridge.MAX_SESSIONS;
    /**
     * The running instances by slot (null where free). Copy on write: the producer thread publishes a
     * new array with a volatile store at start/stop, before it sets (start) or after it clears (stop)
     * the slot's bit in the categories' masks; application threads read it once per event. A thread
     * that still sees an old array writes into the old session's writer, whose chunks the service
     * scrapes or discards.
     */
    private volatile ActiveSession[] sessions = new ActiveSession[MAX_SESSIONS];
    /** Orders every write of the categories' session masks (see {@link #updateCategories}). */
    private final Object categoryLock = new Object();
    /**
     * Platform threads' hot memos by thread id: the plain slice's way around {@link #threads}. A field
     * of its own, not reached through {@link #owned}: one dependent load less on every slice.
     */
    private final HotSequenceTable hotMemos = new HotSequenceTable();
    /** Platform threads' own sequences: the budget, their holders, closing and reaping them. */
    private final OwnedSequences owned = new OwnedSequences(hotMemos);
    /** Sessions' losses as the control surfaces read them, live and final. */
    private final SessionLosses losses = new SessionLosses(owned);
    /** Racy on purpose: at worst a second thread logs the same warning once more. */
    private boolean failureLogged;

    public TrackEventDataSource(ProcessTrack process) {
        this.process = process;
        this.packets = new EventPackets(process);
        this.threads = ThreadLocal.withInitial(() -> new ThreadState(process));
        this.bridge = AgentBridge.open();
        bridge.install(this, this::categoryCreated);
        ApiCopies.serve(this, bridge);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public DataSourceInstance create(DataSourceContext context, DataSourceConfig config) {
        return new TrackEventSession(this, context, config);
    }

    ProcessTrack process() {
        return process;
    }

    AgentBridge bridge() {
        return bridge;
    }

    /**
     * Producer thread: puts {@code session} in its slot. The owned budget is set first and the sessions
     * array published before the categories' masks name the slot (see {@link #sessions}).
     */
    void install(ActiveSession session, int ownedBudget) {
        owned.setBudget(ownedBudget);
        ActiveSession[] next = sessions.clone();
        next[session.slot()] = session;
        sessions = next;
        updateCategories();
    }

    /** Whether {@code session} is the one in its slot now. */
    boolean installed(ActiveSession session) {
        return sessions[session.slot()] == session;
    }

    /** Producer thread: takes {@code session} out of its slot and out of the categories' masks. */
    void uninstall(ActiveSession session) {
        losses.stopping(session);
        ActiveSession[] next = sessions.clone();
        next[session.slot()] = null;
        sessions = next;
        updateCategories();
    }

    /**
     * Producer thread, at {@code session}'s stop, once its writers are closed: its final loss, kept for
     * {@link #lostEvents} and returned for the trace (see {@link SessionLosses}).
     */
    long stopped(ActiveSession session) {
        return losses.stopped(session);
    }

    /**
     * Any thread: events the track_event instance of tracing session {@code tracingSessionId} lost so
     * far (SMB full, no writer to be had), or -1 when this source serves no such session. While the
     * session runs and stops, a live figure read from its writers' counters as they go, which may trail
     * them by a few events and never goes down (see {@link ActiveSession#lostEvents}); once it stopped,
     * the count its trace holds ({@link #LOST_EVENTS_TRACK}), at least every live figure shown before.
     */
    public long lostEvents(long tracingSessionId) {
        return losses.lostEvents(sessions, tracingSessionId);
    }

    /** Producer thread: closes the own sequences of threads that have ended (see {@link OwnedSequences}). */
    void reapEndedThreads() {
        owned.reapEnded();
    }

    /** Whether the calling thread's hot memo holds its slot in the table (for tests). */
    boolean hotMemoInTable() {
        return hotMemos.holds(threads.get().hot);
    }

    /** Own sequences open now, in all sessions: what the owned budget counts. */
    int ownedSequenceCount() {
        return owned.openCount();
    }

    /** Producer thread: a free slot for a new session, or -1. */
    int freeSlot() {
        ActiveSession[] current = sessions;
        for (int slot = 0; slot < MAX_SESSIONS; slot++) {
            if (current[slot] == null) {
                return slot;
            }
        }
        return -1;
    }

    /**
     * Producer thread, after publishing {@link #sessions}: every category's mask from the running
     * sessions' filters. Under {@link #categoryLock}, as {@link #categoryCreated} is: otherwise a
     * category made meanwhile could store a mask computed from the old sessions after this stored the
     * new one, and stay wrong for the whole session.
     */
    private void updateCategories() {
        synchronized (categoryLock) {
            for (Category category : AgentBridge.categories()) {
                bridge.setSessionMask(category, maskOf(category));
            }
        }
        // Other copies of the API follow their twins: after the lock, which their adapters may need.
        ApiCopies.refreshMasks();
    }

    private int maskOf(Category category) {
        ActiveSession[] current = sessions;
        int mask = 0;
        for (int slot = 0; slot < MAX_SESSIONS; slot++) {
            ActiveSession session = current[slot];
            if (session != null && session.filter().isEnabled(category.name())) {
                mask |= 1 << slot;
            }
        }
        return mask;
    }

    /**
     * Any thread that creates a category (rare: categories live in static fields). The category is
     * already in the registry, so an {@link #updateCategories} after this lock recomputes it too.
     */
    private void categoryCreated(Category category) {
        synchronized (categoryLock) {
            bridge.setSessionMask(category, maskOf(category));
        }
    }

    // ------------------------------------------------------------------ the event path

    /**
     * The sequence the calling thread writes its next event into, ready (its incremental state current):
     * its own, or one claimed from the pool (the caller releases it); or null when the event is lost (no
     * sequence could be had, the SMB is full, or the sequence's restarted header did not fit), already
     * counted.
     */
    private Sequence enter(ThreadState t, SessionBinding b, ActiveSession session, long timestamp) {
        if (b.session != session) {
            bind(t, b, session);
        }
        Sequence s = b.own;
        if (s == null) {
            int slot = session.pool().claim(b.poolHint);
            if (slot < 0) {
                session.lostWithoutWriter();
                return null;
            }
            b.poolHint = slot;
            s = session.pool().get(slot);
        }
        if (s.writer.dropIfSmbFull()) {
            // The writer counted it as a dropped event; writing it (and a header first) would end the same way.
            exit(s);
            return null;
        }
        // One volatile read of the generation for the whole event: the restart and the description below
        // then start from the same generation the check saw.
        int generation = session.generation();
        if (s.needsRestart(generation)) {
            // The service asked for it, or this writer lost packets: whatever this sequence interned or
            // described may be gone from the trace, so start over. Without this, trace_processor would
            // drop every later event of the sequence that refers to lost interned names.
            if (!restart(s, t, session, generation, timestamp)) {
                // Its header did not fit (SMB full): an event after it could not be decoded. It is lost.
                session.lostWithoutWriter();
                exit(s);
                return null;
            }
        }
        if (s.pooled() && b.describedGeneration != generation) {
            describeThreadOnPooled(s, t, b, session, generation);
        }
        return s;
    }

    private static void exit(Sequence s) {
        if (s.pooled()) {
            s.release();
        }
    }

    /**
     * First event of this thread in this session: drops a sequence of an earlier session and, for a
     * platform thread, takes an own sequence if the budget allows.
     */
    private void bind(ThreadState t, SessionBinding b, ActiveSession session) {
        owned.close(b);
        b.session = session;
        b.describedGeneration = -1;
        if (!t.virtual) {
            b.own = owned.open(t, session);
        }
    }

    /**
     * Writes the sequence's header (and, on an own sequence, its thread's descriptor), forgets its
     * interning and starts its incremental clock at the timestamp of the event about to be written.
     * Returns whether all of it reached the SMB; if not, the next event restarts the sequence again.
     */
    private boolean restart(Sequence s, ThreadState t, ActiveSession session, int generation, long timestamp) {
        s.clearIncrementalState(generation, timestamp);
        s.writer.describing(true);
        try {
            ProtoWriter p = s.writer.beginPacket();
            SequenceHeader.writeIncremental(p, s.defaultTrack, timestamp);
            s.writer.endPacket();
            if (!s.pooled()) {
                // Its own packet: track_descriptor and the header's clock_snapshot are members of one oneof.
                p = s.writer.beginPacket();
                process.writeThreadDescriptor(p, t.id, t.thread.getName());
                s.writer.endPacket();
            }
            if (session.restartsEachChunk()) {
                // A ring overwrites the session's first packets, the process's descriptor among them: as
                // Perfetto's SDK does, every restart names the process (pid and name, a few dozen bytes).
                process.writeProcessDescriptor(s.writer, false);
            }
        } finally {
            s.writer.describing(false);
        }
        return s.writer.droppedPackets() == s.drops;
    }

    /** A pooled sequence carries other threads' events too: describe this thread's track once per generation. */
    private void describeThreadOnPooled(Sequence s, ThreadState t, SessionBinding b, ActiveSession session, int generation) {
        long dropsBefore = s.writer.droppedPackets();
        s.writer.describing(true);
        try {
            ProtoWriter p = s.writer.beginPacket();
            if (t.virtual) {
                process.writeNamedTrack(p, t.trackUuid,
                        ProcessTrack.virtualThreadTrackName(t.thread.getName(), t.thread.getId()), false);
            } else {
                process.writeThreadDescriptor(p, t.id, t.thread.getName());
            }
            s.writer.endPacket();
        } finally {
            s.writer.describing(false);
        }
        if (s.writer.droppedPackets() == dropsBefore) {
            b.describedGeneration = generation;
        }
    }

    /**
     * Writes one event of the calling thread: a slice begin or end, an instant, or (type COUNTER) a
     * counter sample of {@code longValue} or, if {@code isDouble}, {@code doubleValue}. Nothing thrown
     * here reaches the application: a failure inside a packet aborts it (the writer counts it and leaves
     * a drop marker); one before any packet was begun is counted by the session.
     */
    private void event(ThreadState t, ActiveSession session, int type, Category category, String name, long timestamp,
                       long longValue, double doubleValue, boolean isDouble, EventData data) {
        Sequence s = null;
        try {
            s = enter(t, t.binding(session.slot()), session, timestamp);
            if (s == null) {
                return; // counted as lost by enter
            }
            if (type == TrackEvent.Type.TYPE_COUNTER_VALUE) {
                packets.counter(s, name, timestamp, longValue, doubleValue, isDouble);
            } else {
                packets.event(s, s.pooled() ? t.trackUuid : 0, session, type, category, name, timestamp, data);
            }
        } catch (Throwable e) {
            failed(session, s, e);
        } finally {
            if (s != null) {
                exit(s);
            }
        }
    }

    /**
     * Sends one event to every session whose slot bit is set in {@code category}'s mask: {@code written}
     * is the category the packet names (null for an end, which names none).
     */
    private void route(int type, Category category, Category written, String name, long timestamp, long longValue,
                       double doubleValue, boolean isDouble, EventData data) {
        int mask = AgentBridge.sessionMask(category);
        if (mask != 0) {
            route(threads.get(), mask, type, written, name, timestamp, longValue, doubleValue, isDouble, data);
        }
    }

    private void route(ThreadState t, int mask, int type, Category written, String name, long timestamp,
                       long longValue, double doubleValue, boolean isDouble, EventData data) {
        ActiveSession[] all = sessions;
        if (t.seenSessions != all) {
            owned.closeStale(t, all);
        }
        int sessionsLeft = mask;
        do {
            int slot = Integer.numberOfTrailingZeros(sessionsLeft);
            sessionsLeft &= sessionsLeft - 1;
            ActiveSession session = all[slot];
            if (session != null) {
                event(t, session, type, written, name, timestamp, longValue, doubleValue, isDouble, data);
            }
        } while (sessionsLeft != 0);
        t.hot.remember(t, mask, all);
        owned.offerHotMemo(t.hot);
    }

    /**
     * A slice begin or end whose category goes to one session, through the thread's own sequence, with
     * name and category interned there already: written by {@link HotSequence} without the general
     * route, else by it. A failure in the hot path is handled as in {@link #event}: counted, never thrown.
     */
    private void slice(int type, Category category, Category written, String name, long timestamp) {
        int mask = AgentBridge.sessionMask(category);
        if (mask == 0) {
            return;
        }
        ThreadState t = null;
        HotSequence hot = hotMemos.find(Thread.currentThread());
        if (hot == null) {
            t = threads.get();
            hot = t.hot;
        }
        try {
            if (hot.tryWrite(mask, sessions, type, written, name, timestamp)) {
                return;
            }
        } catch (Throwable e) {
            failed(hot.session(), hot.sequence(), e);
            return;
        }
        route(t != null ? t : threads.get(), mask, type, written, name, timestamp, 0, 0, false, null);
    }

    @Override
    public void begin(Category category, String name, long timestamp) {
        slice(TrackEvent.Type.TYPE_SLICE_BEGIN_VALUE, category, category, name, timestamp);
    }

    @Override
    public void end(Category category, long timestamp) {
        slice(TrackEvent.Type.TYPE_SLICE_END_VALUE, category, null, null, timestamp);
    }

    @Override
    public void event(int type, Category category, String name, long timestamp, EventData data) {
        if (type == EventData.TYPE_END) {
            route(TrackEvent.Type.TYPE_SLICE_END_VALUE, category, null, null, timestamp, 0, 0, false, data);
        } else {
            int protoType = type == EventData.TYPE_BEGIN ? TrackEvent.Type.TYPE_SLICE_BEGIN_VALUE : TrackEvent.Type.TYPE_INSTANT_VALUE;
            route(protoType, category, category, name, timestamp, 0, 0, false, data);
        }
    }

    @Override
    public void instant(Category category, String name, long timestamp) {
        route(TrackEvent.Type.TYPE_INSTANT_VALUE, category, category, name, timestamp, 0, 0, false, null);
    }

    @Override
    public void counter(Category category, String name, long value, long timestamp) {
        route(TrackEvent.Type.TYPE_COUNTER_VALUE, category, category, name, timestamp, value, 0, false, null);
    }

    @Override
    public void counter(Category category, String name, double value, long timestamp) {
        route(TrackEvent.Type.TYPE_COUNTER_VALUE, category, category, name, timestamp, 0, value, true, null);
    }

    /**
     * A bug of ours, a bad argument (like a null name) or a resource we ran out of must not reach the
     * application: the event is counted as lost — by the writer (with a drop marker, so the sequence
     * stays well-formed) when a packet was open, else by the session — and the first failure is logged.
     */
    private void failed(ActiveSession session, Sequence s, Throwable e) {
        boolean counted = false;
        try {
            if (s != null && s.writer.inPacket()) {
                s.writer.abortPacket();
                counted = true;
            }
        } catch (Throwable ignored) {
            // The writer itself is broken: the event is counted below all the same.
        }
        if (!counted) {
            session.lostWithoutWriter();
        }
        if (!failureLogged) {
            failureLogged = true;
            LOG.warn("jtrace track_event: dropped an event that could not be written", e);
        }
    }
}
