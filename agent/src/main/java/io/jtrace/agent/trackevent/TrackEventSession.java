package io.jtrace.agent.trackevent;

import io.jtrace.producer.DataSourceContext;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.writer.TraceWriter;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One tracing session of {@link TrackEventDataSource}, from start to stop, on the producer thread: takes
 * a session slot, writes the process descriptor, makes the session's pool of shared sequences, reaps
 * ended threads' writers while it runs, and at stop writes what the session lost.
 */
final class TrackEventSession implements DataSourceInstance {
    /** The source's logger: users and harnesses know the loss warning by that name. */
    private static final Logger LOG = LoggerFactory.getLogger(TrackEventDataSource.class);
    private static final long POOL_CLOSE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final TrackEventDataSource source;
    private final DataSourceContext context;
    private final DataSourceConfig config;
    private final CategoryFilter filter;
    private ActiveSession session;
    private TraceWriter descriptorWriter;
    private DataSourceContext.Cancellable reaper;

    TrackEventSession(TrackEventDataSource source, DataSourceContext context, DataSourceConfig config) {
        this.source = source;
        this.context = context;
        this.config = config;
        this.filter = CategoryFilter.from(config.getTrackEventConfig());
    }

    @Override
    public void start() {
        int slot = source.freeSlot();
        if (slot < 0) {
            LOG.warn("jtrace: track_event serves at most {} sessions at once: the session with id {} (as `jtrace status`"
                    + " lists it) records no track events; stop another session first",
                    TrackEventDataSource.MAX_SESSIONS, config.getTracingSessionId());
            return;
        }
        source.reapEndedThreads();
        // Kept open until stop: closing it retires its sequence, and the process descriptor and the loss
        // count written at stop belong on one sequence.
        descriptorWriter = context.newTraceWriter();
        source.process().writeProcessDescriptor(descriptorWriter, true);
        descriptorWriter.flush();
        Sequence[] pooled = new Sequence[SequencePool.defaultSize()];
        for (int i = 0; i < pooled.length; i++) {
            pooled[i] = new Sequence(ActiveSession.newWriter(context, config.getTargetBufferOverwrites(),
                    config.getNeedsIncrementalStateByChunk()), 0);
        }
        session = new ActiveSession(slot, config.getTracingSessionId(), config.getTargetBufferOverwrites(),
                config.getNeedsIncrementalStateByChunk(), context,
                filter, new SequencePool(pooled), source.bridge());
        source.install(session, Math.max(0, context.smbChunks() / 4));
        reaper = context.every(TrackEventDataSource.REAP_PERIOD_MS, source::reapEndedThreads);
    }

    @Override
    public void flush() {
        // Application threads' writers cannot be flushed from here; the service scrapes their chunks.
    }

    @Override
    public void clearIncrementalState() {
        if (session != null) {
            session.clearIncrementalState();
        }
        source.reapEndedThreads();
    }

    @Override
    public void stop() {
        if (session == null || !source.installed(session)) {
            return;
        }
        reaper.cancel();
        long lost;
        try {
            source.uninstall(session);
            int stuck = session.pool().close(POOL_CLOSE_TIMEOUT_NANOS, session);
            if (stuck > 0) {
                LOG.warn("jtrace track_event: {} shared writer(s) still busy at stop; the service scrapes them", stuck);
            }
            source.reapEndedThreads();
        } finally {
            lost = source.stopped(session);
        }
        try {
            reportLoss(lost);
        } finally {
            descriptorWriter.close();
        }
    }

    /** The session's loss, as a counter in the trace (0 too: "nothing lost" is worth seeing) and in the log. */
    private void reportLoss(long lost) {
        ProcessTrack process = source.process();
        long track = process.namedUuid("counter:" + TrackEventDataSource.LOST_EVENTS_TRACK);
        // The SMB may be full right now: retry while the service frees chunks, for up to 1 s.
        for (int attempt = 0; attempt < 100; attempt++) {
            long drops = descriptorWriter.droppedPackets();
            process.writeNamedTrack(descriptorWriter, track, TrackEventDataSource.LOST_EVENTS_TRACK, true);
            ProtoWriter p = descriptorWriter.beginPacket();
            // The descriptor sequence has no header (no default clock): name System.nanoTime()'s clock.
            EventPackets.timestamp(p, System.nanoTime(), -1);
            p.beginNested(TracePacket.TRACK_EVENT_FIELD_NUMBER);
            p.varint(TrackEvent.TYPE_FIELD_NUMBER, TrackEvent.Type.TYPE_COUNTER_VALUE);
            p.varint(TrackEvent.TRACK_UUID_FIELD_NUMBER, track);
            p.varint(TrackEvent.COUNTER_VALUE_FIELD_NUMBER, lost);
            p.endNested();
            descriptorWriter.endPacket();
            if (descriptorWriter.droppedPackets() == drops) {
                break;
            }
            LockSupport.parkNanos(10_000_000);
        }
        if (lost > 0) {
            LOG.warn("jtrace track_event: {} event(s) lost ({} without a writer, the rest dropped because "
                    + "the shared memory buffer was full)", lost, session.lostWithoutWriterCount());
        }
    }
}
