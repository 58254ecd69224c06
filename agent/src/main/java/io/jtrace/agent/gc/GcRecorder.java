package io.jtrace.agent.gc;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import io.jtrace.agent.tracks.ProcessTrack;
import io.jtrace.agent.tracks.SequenceHeader;
import io.jtrace.producer.DataSourceContext;
import io.jtrace.protos.DebugAnnotation;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.writer.TraceWriter;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns GC notifications into slices. Each collection becomes a slice on the track "GC: collector",
 * named after the collector's action (e.g. "end of minor GC"), with the cause, the GC id and the heap
 * used before and after as debug annotations.
 *
 * <p>GcInfo gives start and end in milliseconds since JVM start; they are placed on the
 * {@code System.nanoTime()} timeline through the JVM start instant measured once.
 *
 * <p>Notifications arrive asynchronously after each GC, on a JVM thread; writes are serialized with a
 * lock because this is not an application hot path. At stop the recorder waits (bounded) until it has
 * seen as many collections as the collectors report, so GCs just before the end are not lost.
 */
final class GcRecorder implements NotificationListener {
    private static final Logger LOG = LoggerFactory.getLogger(GcRecorder.class);
    private static final long STOP_WAIT_MILLIS = 2000;

    private final ProcessTrack process;
    private final DataSourceContext context;
    private final List<GarbageCollectorMXBean> collectors;
    private final List<NotificationEmitter> subscribed = new ArrayList<>();
    private final Map<String, Long> trackUuids = new HashMap<>();
    private final long jvmStartNanos;
    private TraceWriter writer;
    private long baselineCollections;
    private long seen;
    private boolean stopped;
    /** Set by the producer thread, read by the notification thread: start the sequence's state over. */
    private volatile boolean clearRequested;
    private long drops;

    GcRecorder(ProcessTrack process, DataSourceContext context, List<GarbageCollectorMXBean> collectors) {
        this.process = process;
        this.context = context;
        this.collectors = collectors;
        long uptimeMillis = ManagementFactory.getRuntimeMXBean().getUptime();
        this.jvmStartNanos = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(uptimeMillis);
    }

    synchronized void start() {
        writer = context.newTraceWriter();
        writeSequenceHeader();
        baselineCollections = totalCollections();
        for (GarbageCollectorMXBean collector : collectors) {
            if (collector instanceof NotificationEmitter) {
                NotificationEmitter emitter = (NotificationEmitter) collector;
                emitter.addNotificationListener(this, null, null);
                subscribed.add(emitter);
            }
        }
    }

    /** The sequence header (clock defaults, process track); GC tracks are described again as they come up. */
    private void writeSequenceHeader() {
        ProtoWriter p = writer.beginPacket();
        SequenceHeader.write(p, 0);
        writer.endPacket();
        process.writeProcessDescriptor(writer);
        trackUuids.clear();
        clearRequested = false;
        drops = writer.droppedPackets();
    }

    void clearIncrementalState() {
        clearRequested = true;
    }

    synchronized void flush() {
        if (writer != null) {
            writer.flush();
        }
    }

    void stop() {
        awaitPendingNotifications();
        for (NotificationEmitter emitter : subscribed) {
            try {
                emitter.removeNotificationListener(this);
            } catch (ListenerNotFoundException e) {
                // Already gone: nothing to undo.
            }
        }
        synchronized (this) {
            stopped = true;
            if (writer != null) {
                writer.close();
            }
        }
    }

    private void awaitPendingNotifications() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_WAIT_MILLIS);
        while (System.nanoTime() < deadline) {
            long expected = totalCollections() - baselineCollections;
            synchronized (this) {
                if (seen >= expected) {
                    return;
                }
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        LOG.debug("jtrace jvm.gc: stopped before every GC notification arrived");
    }

    private long totalCollections() {
        long total = 0;
        for (GarbageCollectorMXBean collector : collectors) {
            total += Math.max(0, collector.getCollectionCount());
        }
        return total;
    }

    @Override
    public void handleNotification(Notification notification, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        synchronized (this) {
            if (stopped || writer == null) {
                return;
            }
            seen++;
            write(info);
        }
    }

    private void write(GarbageCollectionNotificationInfo info) {
        if (clearRequested || drops != writer.droppedPackets()) {
            writeSequenceHeader();
        }
        GcInfo gc = info.getGcInfo();
        long track = trackUuids.computeIfAbsent(info.getGcName(), name -> {
            long uuid = process.namedUuid("gc:" + name);
            process.writeNamedTrack(writer, uuid, "GC: " + name, false);
            return uuid;
        });
        long start = jvmStartNanos + TimeUnit.MILLISECONDS.toNanos(gc.getStartTime());
        long end = jvmStartNanos + TimeUnit.MILLISECONDS.toNanos(gc.getEndTime());

        ProtoWriter p = writer.beginPacket();
        p.varint(TracePacket.TIMESTAMP_FIELD_NUMBER, start);
        // The timestamps mean CLOCK_MONOTONIC only through the sequence's packet defaults.
        p.varint(TracePacket.SEQUENCE_FLAGS_FIELD_NUMBER, SequenceHeader.SEQ_NEEDS_INCREMENTAL_STATE);
        p.beginNested(TracePacket.TRACK_EVENT_FIELD_NUMBER);
        p.varint(TrackEvent.TYPE_FIELD_NUMBER, TrackEvent.Type.TYPE_SLICE_BEGIN_VALUE);
        p.varint(TrackEvent.TRACK_UUID_FIELD_NUMBER, track);
        p.string(TrackEvent.CATEGORIES_FIELD_NUMBER, "gc");
        p.string(TrackEvent.NAME_FIELD_NUMBER, info.getGcAction().replaceFirst("^end of ", ""));
        stringAnnotation(p, "cause", info.getGcCause());
        intAnnotation(p, "gc_id", gc.getId());
        intAnnotation(p, "duration_ms", gc.getDuration());
        intAnnotation(p, "heap_used_before", used(gc.getMemoryUsageBeforeGc()));
        intAnnotation(p, "heap_used_after", used(gc.getMemoryUsageAfterGc()));
        p.endNested();
        writer.endPacket();

        p = writer.beginPacket();
        p.varint(TracePacket.TIMESTAMP_FIELD_NUMBER, end);
        p.varint(TracePacket.SEQUENCE_FLAGS_FIELD_NUMBER, SequenceHeader.SEQ_NEEDS_INCREMENTAL_STATE);
        p.beginNested(TracePacket.TRACK_EVENT_FIELD_NUMBER);
        p.varint(TrackEvent.TYPE_FIELD_NUMBER, TrackEvent.Type.TYPE_SLICE_END_VALUE);
        p.varint(TrackEvent.TRACK_UUID_FIELD_NUMBER, track);
        p.endNested();
        writer.endPacket();
    }

    private static long used(Map<String, MemoryUsage> pools) {
        long total = 0;
        for (MemoryUsage usage : pools.values()) {
            total += usage.getUsed();
        }
        return total;
    }

    private static void stringAnnotation(ProtoWriter p, String name, String value) {
        p.beginNested(TrackEvent.DEBUG_ANNOTATIONS_FIELD_NUMBER);
        p.string(DebugAnnotation.NAME_FIELD_NUMBER, name);
        p.string(DebugAnnotation.STRING_VALUE_FIELD_NUMBER, value);
        p.endNested();
    }

    private static void intAnnotation(ProtoWriter p, String name, long value) {
        p.beginNested(TrackEvent.DEBUG_ANNOTATIONS_FIELD_NUMBER);
        p.string(DebugAnnotation.NAME_FIELD_NUMBER, name);
        p.varint(DebugAnnotation.INT_VALUE_FIELD_NUMBER, value);
        p.endNested();
    }
}
