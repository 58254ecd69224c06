package io.jtrace.agent.trackevent;

import io.jtrace.agent.tracks.ProcessTrack;
import io.jtrace.agent.tracks.SequenceHeader;
import io.jtrace.api.AgentBridge;
import io.jtrace.api.Category;
import io.jtrace.api.Slice;
import io.jtrace.api.spi.TrackEventBackend;
import io.jtrace.producer.DataSource;
import io.jtrace.producer.DataSourceContext;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.EventCategory;
import io.jtrace.protos.EventName;
import io.jtrace.protos.InternedData;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.writer.TraceWriter;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code track_event} data source: the backend of {@link io.jtrace.api.TrackEvent}. Each
 * application thread writes its own sequence (its own {@link TraceWriter}), with names and categories
 * interned per sequence, slices on its thread track and counters on process-wide counter tracks.
 *
 * <p>One instance runs at a time; a second session asking for track_event while one runs is refused
 * with a warning.
 */
public final class TrackEventDataSource implements DataSource, TrackEventBackend {
    public static final String NAME = "track_event";
    private static final Logger LOG = LoggerFactory.getLogger(TrackEventDataSource.class);

    private final ProcessTrack process;
    private final ThreadLocal<ThreadState> threads = ThreadLocal.withInitial(ThreadState::new);
    private final Slice endSlice = () -> end(null, System.nanoTime());
    /**
     * The running instance, or null. Written by the producer thread at start/stop (volatile store),
     * read by application threads on every enabled event; a thread that still sees the old value writes
     * into the old session's writer, whose chunks the service scrapes or discards.
     */
    private volatile ActiveSession active;
    /** Every thread that holds a writer: added by the thread itself, reaped by the producer thread. */
    private final ConcurrentLinkedQueue<ThreadState> threadsWithWriters = new ConcurrentLinkedQueue<>();
    /** Racy on purpose: at worst a second thread logs the same warning once more. */
    private boolean failureLogged;

    public TrackEventDataSource(ProcessTrack process) {
        this.process = process;
        AgentBridge.install(this, this::categoryCreated);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public DataSourceInstance create(DataSourceContext context, DataSourceConfig config) {
        ActiveSession session = new ActiveSession(context, CategoryFilter.from(config.getTrackEventConfig()));
        return new DataSourceInstance() {
            private TraceWriter descriptorWriter;

            @Override
            public void start() {
                if (active != null) {
                    LOG.warn("jtrace: track_event already runs for another session; session {} gets none",
                            config.getTracingSessionId());
                    return;
                }
                releaseEndedThreads();
                // Kept open until stop: closing it would free its writer id for another writer of this
                // session, whose chunk ids would restart at 0 on the same sequence.
                descriptorWriter = context.newTraceWriter();
                process.writeProcessDescriptor(descriptorWriter);
                descriptorWriter.flush();
                active = session;
                for (Category category : AgentBridge.categories()) {
                    AgentBridge.setEnabled(category, session.filter().isEnabled(category.name()));
                }
            }

            @Override
            public void flush() {
                // Application threads' writers cannot be flushed from here; the service scrapes their chunks.
            }

            @Override
            public void clearIncrementalState() {
                session.clearIncrementalState();
                releaseEndedThreads();
            }

            @Override
            public void stop() {
                if (active != session) {
                    return;
                }
                for (Category category : AgentBridge.categories()) {
                    AgentBridge.setEnabled(category, false);
                }
                active = null;
                descriptorWriter.close();
                releaseEndedThreads();
            }
        };
    }

    /**
     * Producer thread: gives back the chunks and writer ids of threads that have ended. A dead thread
     * never writes again, and everything it wrote happened-before its end was observed (isAlive), so
     * closing its writer here races with nothing. Without this, every thread that traced once and then
     * died would keep a chunk of the SMB forever.
     */
    private void releaseEndedThreads() {
        for (Iterator<ThreadState> it = threadsWithWriters.iterator(); it.hasNext(); ) {
            ThreadState t = it.next();
            if (!t.thread.isAlive()) {
                it.remove();
                t.writer.close();
                t.writer = null;
            }
        }
    }

    private void categoryCreated(Category category) {
        ActiveSession session = active;
        if (session != null) {
            AgentBridge.setEnabled(category, session.filter().isEnabled(category.name()));
        }
    }

    /** The calling thread's state bound to the running session, or null when none runs. */
    private ThreadState bound() {
        ActiveSession session = active;
        if (session == null) {
            return null;
        }
        ThreadState t = threads.get();
        if (t.session != session) {
            boolean firstWriter = t.writer == null;
            t.rebind(session);
            if (firstWriter) {
                threadsWithWriters.add(t);
            }
            writeSequenceHeader(t);
        } else if (t.generation != session.generation() || t.drops != t.writer.droppedPackets()) {
            // The service asked for it, or this writer lost packets: whatever this sequence interned or
            // described may be gone from the trace, so start over. Without this, trace_processor would
            // drop every later event of the thread that refers to lost interned names.
            t.clearIncrementalState();
            writeSequenceHeader(t);
        }
        return t;
    }

    private void writeSequenceHeader(ThreadState t) {
        ProtoWriter p = t.writer.beginPacket();
        SequenceHeader.write(p, process.threadUuid(t.tid));
        process.writeThreadDescriptor(p, t.tid, Thread.currentThread().getName());
        t.writer.endPacket();
        t.generation = t.session.generation();
        t.drops = t.writer.droppedPackets();
    }

    @Override
    public void begin(Category category, String name, long timestamp) {
        ThreadState t = bound();
        if (t != null) {
            try {
                writeEvent(t, TrackEvent.Type.TYPE_SLICE_BEGIN_VALUE, category, name, timestamp);
            } catch (RuntimeException e) {
                failed(t, e);
            }
        }
    }

    @Override
    public void end(Category category, long timestamp) {
        ThreadState t = bound();
        if (t != null) {
            try {
                writeEvent(t, TrackEvent.Type.TYPE_SLICE_END_VALUE, null, null, timestamp);
            } catch (RuntimeException e) {
                failed(t, e);
            }
        }
    }

    @Override
    public Slice sliceCloser(Category category) {
        return endSlice;
    }

    @Override
    public void instant(Category category, String name, long timestamp) {
        ThreadState t = bound();
        if (t != null) {
            try {
                writeEvent(t, TrackEvent.Type.TYPE_INSTANT_VALUE, category, name, timestamp);
            } catch (RuntimeException e) {
                failed(t, e);
            }
        }
    }

    @Override
    public void counter(Category category, String name, long value, long timestamp) {
        ThreadState t = bound();
        if (t != null) {
            try {
                ProtoWriter p = beginCounter(t, name, timestamp);
                p.varint(TrackEvent.COUNTER_VALUE_FIELD_NUMBER, value);
                endEvent(t, p);
            } catch (RuntimeException e) {
                failed(t, e);
            }
        }
    }

    @Override
    public void counter(Category category, String name, double value, long timestamp) {
        ThreadState t = bound();
        if (t != null) {
            try {
                ProtoWriter p = beginCounter(t, name, timestamp);
                p.doubleField(TrackEvent.DOUBLE_COUNTER_VALUE_FIELD_NUMBER, value);
                endEvent(t, p);
            } catch (RuntimeException e) {
                failed(t, e);
            }
        }
    }

    /**
     * A bug of ours (or a bad argument, like a null name) must not reach the application: the packet is
     * dropped and counted, the sequence stays well-formed, and the first such failure is logged.
     */
    private void failed(ThreadState t, RuntimeException e) {
        t.writer.abortPacket();
        if (!failureLogged) {
            failureLogged = true;
            LOG.warn("jtrace track_event: dropped an event that could not be written", e);
        }
    }

    private void writeEvent(ThreadState t, int type, Category category, String name, long timestamp) {
        int categoryIid = 0;
        int nameIid = 0;
        boolean newCategory = false;
        boolean newName = false;
        if (category != null) {
            categoryIid = t.categoryIid(category);
            newCategory = categoryIid == 0;
            if (newCategory) {
                categoryIid = internCategory(t, category);
            }
        }
        if (name != null) {
            nameIid = t.nameIid(name);
            newName = nameIid == 0;
            if (newName) {
                nameIid = internName(t, name);
            }
        }
        if (!newCategory && !newName && categoryIid <= SmallEventEncoder.MAX_SMALL_IID
                && nameIid <= SmallEventEncoder.MAX_SMALL_IID
                && SmallEventEncoder.tryWrite(t.writer, timestamp, type, categoryIid, nameIid)) {
            return;
        }
        ProtoWriter p = t.writer.beginPacket();
        p.varint(TracePacket.TIMESTAMP_FIELD_NUMBER, timestamp);
        p.varint(TracePacket.SEQUENCE_FLAGS_FIELD_NUMBER, SequenceHeader.SEQ_NEEDS_INCREMENTAL_STATE);
        if (newCategory || newName) {
            p.beginNested(TracePacket.INTERNED_DATA_FIELD_NUMBER);
            if (newCategory) {
                p.beginNested(InternedData.EVENT_CATEGORIES_FIELD_NUMBER);
                p.varint(EventCategory.IID_FIELD_NUMBER, categoryIid);
                p.string(EventCategory.NAME_FIELD_NUMBER, category.name());
                p.endNested();
            }
            if (newName) {
                p.beginNested(InternedData.EVENT_NAMES_FIELD_NUMBER);
                p.varint(EventName.IID_FIELD_NUMBER, nameIid);
                p.string(EventName.NAME_FIELD_NUMBER, name);
                p.endNested();
            }
            p.endNested();
        }
        p.beginNested(TracePacket.TRACK_EVENT_FIELD_NUMBER);
        p.varint(TrackEvent.TYPE_FIELD_NUMBER, type);
        if (categoryIid != 0) {
            p.varint(TrackEvent.CATEGORY_IIDS_FIELD_NUMBER, categoryIid);
        }
        if (nameIid != 0) {
            p.varint(TrackEvent.NAME_IID_FIELD_NUMBER, nameIid);
        }
        endEvent(t, p);
    }

    private ProtoWriter beginCounter(ThreadState t, String name, long timestamp) {
        Long track = t.counterTracks.get(name);
        if (track == null) {
            track = process.namedUuid("counter:" + name);
            t.counterTracks.put(name, track);
            process.writeNamedTrack(t.writer, track, name, true);
        }
        ProtoWriter p = t.writer.beginPacket();
        p.varint(TracePacket.TIMESTAMP_FIELD_NUMBER, timestamp);
        p.varint(TracePacket.SEQUENCE_FLAGS_FIELD_NUMBER, SequenceHeader.SEQ_NEEDS_INCREMENTAL_STATE);
        p.beginNested(TracePacket.TRACK_EVENT_FIELD_NUMBER);
        p.varint(TrackEvent.TYPE_FIELD_NUMBER, TrackEvent.Type.TYPE_COUNTER_VALUE);
        p.varint(TrackEvent.TRACK_UUID_FIELD_NUMBER, track);
        return p;
    }

    private static void endEvent(ThreadState t, ProtoWriter p) {
        p.endNested();
        t.writer.endPacket();
    }

    private static int internCategory(ThreadState t, Category category) {
        int iid = t.nextCategoryIid++;
        t.categoryIids.put(category, iid);
        return iid;
    }

    private static int internName(ThreadState t, String name) {
        int iid = t.nextNameIid++;
        t.nameIids.put(name, iid);
        return iid;
    }
}
