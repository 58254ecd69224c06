package io.jtrace.agent.gc;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import io.jtrace.agent.tracks.CounterSet;
import io.jtrace.agent.tracks.DebugAnnotations;
import io.jtrace.agent.tracks.PolledSequence;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.producer.DataSourceContext;
import io.jtrace.protos.CounterDescriptor;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.proto.ProtoWriter;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns GC notifications into slices. Each collection becomes a slice on the track "GC: collector"
 * (under the process), named after the collector's action (e.g. "minor GC"), with the cause, the GC id,
 * the heap used before and after and every memory pool's used bytes before and after as debug
 * annotations; and the heap used before and after goes on the counter track "heap used at GC" at the
 * collection's start and end.
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

    private final PolledSequence sequence;
    private final List<GarbageCollectorMXBean> collectors;
    private final List<NotificationEmitter> subscribed = new ArrayList<>();
    /** Collector name to its track; each described again in every epoch of the sequence. */
    private final Map<String, CollectorTrack> tracks = new HashMap<>();
    private final CounterSet counters;
    private final long jvmStartNanos;
    private boolean opened;
    private long baselineCollections;
    private long seen;
    private boolean stopped;

    GcRecorder(ProcessTrack process, DataSourceContext context, List<GarbageCollectorMXBean> collectors) {
        this.sequence = new PolledSequence(process, context);
        this.counters = new CounterSet(sequence);
        this.collectors = collectors;
        long uptimeMillis = ManagementFactory.getRuntimeMXBean().getUptime();
        this.jvmStartNanos = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(uptimeMillis);
    }

    synchronized void start() {
        sequence.open();
        opened = true;
        for (GarbageCollectorMXBean collector : collectors) {
            if (collector instanceof NotificationEmitter) {
                NotificationEmitter emitter = (NotificationEmitter) collector;
                emitter.addNotificationListener(this, null, null);
                subscribed.add(emitter);
            }
        }
        // Counted after subscribing: a GC between the two is then seen (one more than expected, which
        // stop's wait accepts), where counted first it would be expected and never seen, and every stop
        // would wait the whole STOP_WAIT_MILLIS for it.
        baselineCollections = totalCollections();
    }

    void clearIncrementalState() {
        sequence.clearIncrementalState();
    }

    synchronized void flush() {
        if (opened) {
            sequence.flush();
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
            if (opened) {
                sequence.close();
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
            if (stopped || !opened) {
                return;
            }
            seen++;
            write(info);
        }
    }

    private void write(GarbageCollectionNotificationInfo info) {
        sequence.beginSample();
        GcInfo gc = info.getGcInfo();
        CollectorTrack track = tracks.computeIfAbsent(info.getGcName(),
                name -> new CollectorTrack(sequence.process().namedUuid("gc:" + name),
                        GcDataSource.COLLECTOR_TRACK_PREFIX + name));
        if (sequence.needsDescribing(track.describedEpoch)) {
            track.describedEpoch = sequence.epoch();
            sequence.describeSliceTrack(track.uuid, sequence.process().uuid(), track.name);
        }
        long start = jvmStartNanos + TimeUnit.MILLISECONDS.toNanos(gc.getStartTime());
        long end = jvmStartNanos + TimeUnit.MILLISECONDS.toNanos(gc.getEndTime());
        long before = used(gc.getMemoryUsageBeforeGc());
        long after = used(gc.getMemoryUsageAfterGc());

        ProtoWriter p = sequence.beginEvent(start, TrackEvent.Type.TYPE_SLICE_BEGIN_VALUE, track.uuid);
        if (p == null) {
            return; // the SMB is full: the GC is lost, and the writer's drop marks the loss on the sequence
        }
        p.string(TrackEvent.CATEGORIES_FIELD_NUMBER, GcDataSource.CATEGORY);
        p.string(TrackEvent.NAME_FIELD_NUMBER, info.getGcAction().replaceFirst("^end of ", ""));
        DebugAnnotations.string(p, "cause", info.getGcCause());
        DebugAnnotations.integer(p, "gc_id", gc.getId());
        DebugAnnotations.integer(p, "duration_ms", gc.getDuration());
        DebugAnnotations.integer(p, "heap_used_before", before);
        DebugAnnotations.integer(p, "heap_used_after", after);
        for (Map.Entry<String, MemoryUsage> pool : new TreeMap<>(gc.getMemoryUsageBeforeGc()).entrySet()) {
            MemoryUsage afterGc = gc.getMemoryUsageAfterGc().get(pool.getKey());
            DebugAnnotations.integer(p, pool.getKey() + " before", pool.getValue().getUsed());
            if (afterGc != null) {
                DebugAnnotations.integer(p, pool.getKey() + " after", afterGc.getUsed());
            }
        }
        if (sequence.endEvent() && sequence.beginEvent(end, TrackEvent.Type.TYPE_SLICE_END_VALUE, track.uuid) != null) {
            sequence.endEvent();
        }

        counters.set(GcDataSource.HEAP_COUNTER, CounterDescriptor.Unit.UNIT_SIZE_BYTES, start, before);
        counters.set(GcDataSource.HEAP_COUNTER, CounterDescriptor.Unit.UNIT_SIZE_BYTES, end, after);
    }

    private static long used(Map<String, MemoryUsage> pools) {
        long total = 0;
        for (MemoryUsage usage : pools.values()) {
            total += usage.getUsed();
        }
        return total;
    }

    /** A collector's slice track. */
    private static final class CollectorTrack {
        final long uuid;
        final String name;
        int describedEpoch = -1;

        CollectorTrack(long uuid, String name) {
            this.uuid = uuid;
            this.name = name;
        }
    }
}
