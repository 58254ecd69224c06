package io.jtrace.jfr.format;

import io.jtrace.protos.PerfSample;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.proto.ProtoWriter;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;

/**
 * Writes JFR events as Perfetto packets, the same way for a live session and for a converted file:
 * <ul>
 * <li>an event with a positive duration → a slice (begin at its start, end at its end) on its thread's
 * track; an event without → an instant there; events without a thread go on a track named after their
 * type under the process;
 * <li>a periodic numeric event (see {@link EventKind}) → one value on a counter track per numeric
 * field ({@code <type>.<field>}), all in one packet;
 * <li>{@code jdk.ExecutionSample} / {@code jdk.NativeMethodSample} → a {@code PerfSample} (pid, tid,
 * interned callstack), which trace_processor imports into {@code perf_sample} and the Perfetto UI draws
 * as per-thread callstack tracks with flame graphs. Each sample type has its own sequence, so the two
 * stay apart (trace_processor makes one profiling session per sequence).
 * </ul>
 * Slices and instants are named after the event type ({@code jdk.JavaMonitorEnter}), in category
 * {@value #CATEGORY}, with every other field as a debug annotation and the event's stack trace, if it
 * has one, as the event's interned callstack.
 */
public final class JfrEventMapper {
    public static final String CATEGORY = "jfr";

    private final TrackLayout tracks;
    private final TimeMapping time;
    private final SequenceWriter events;
    private final Function<String, SequenceWriter> sampleSequenceFactory;
    private final Map<String, SequenceWriter> sampleSequences = new HashMap<>();
    private final Map<String, EventTypeInfo> types = new HashMap<>();

    /**
     * {@code events} carries track events and descriptors; {@code sampleSequenceFactory} makes the
     * sequence of a sample event type the first time it is needed.
     */
    public JfrEventMapper(TrackLayout tracks, TimeMapping time, SequenceWriter events,
            Function<String, SequenceWriter> sampleSequenceFactory) {
        this.tracks = tracks;
        this.time = time;
        this.events = events;
        this.sampleSequenceFactory = sampleSequenceFactory;
    }

    public void write(RecordedEvent event) {
        String typeName = event.getEventType().getName();
        EventTypeInfo type = types.get(typeName);
        if (type == null) {
            type = new EventTypeInfo(event.getEventType());
            types.put(typeName, type);
        }
        switch (type.kind) {
            case SAMPLE:
                writeSample(type, event);
                break;
            case COUNTER:
                writeCounters(type, event);
                break;
            default:
                writeTrackEvent(type, event);
                break;
        }
        type.written++;
    }

    /** Events written, per event type name. */
    public Map<String, Long> writtenPerType() {
        Map<String, Long> counts = new TreeMap<>();
        for (EventTypeInfo type : types.values()) {
            if (type.written > 0) {
                counts.put(type.name, type.written);
            }
        }
        return counts;
    }

    public long writtenTotal() {
        long total = 0;
        for (EventTypeInfo type : types.values()) {
            total += type.written;
        }
        return total;
    }

    /** Everything interned may be gone: intern and describe again as things are next used. */
    public void clearIncrementalState() {
        events.clearIncrementalState();
        sampleSequences.values().forEach(SequenceWriter::clearIncrementalState);
        tracks.forgetDescribed();
    }

    private void writeTrackEvent(EventTypeInfo type, RecordedEvent event) {
        events.prepare();
        long track = trackOf(event.getThread(), type);
        type.internNames(events, CATEGORY);
        long category = type.categoryIid;
        long name = type.nameIid;
        long[] annotationNames = type.annotationIids;
        long callstack = 0;
        if (type.hasStackTrace) {
            RecordedStackTrace stack = event.getStackTrace();
            if (stack != null) {
                callstack = events.callstack(stack);
            }
        }
        long start = time.toTrace(event.getStartTime());
        long durationNanos = type.hasDuration ? event.getDuration().toNanos() : 0;
        boolean slice = durationNanos > 0;

        ProtoWriter p = events.beginPacket(start);
        p.beginNested(TracePacket.TRACK_EVENT_FIELD_NUMBER);
        p.varint(TrackEvent.TYPE_FIELD_NUMBER,
                slice ? TrackEvent.Type.TYPE_SLICE_BEGIN_VALUE : TrackEvent.Type.TYPE_INSTANT_VALUE);
        p.varint(TrackEvent.TRACK_UUID_FIELD_NUMBER, track);
        p.varint(TrackEvent.CATEGORY_IIDS_FIELD_NUMBER, category);
        p.varint(TrackEvent.NAME_IID_FIELD_NUMBER, name);
        if (callstack != 0) {
            p.varint(TrackEvent.CALLSTACK_IID_FIELD_NUMBER, callstack);
        }
        Annotations.write(p, TrackEvent.DEBUG_ANNOTATIONS_FIELD_NUMBER, event, type.fields, annotationNames);
        p.endNested();
        events.endPacket();

        if (slice) {
            p = events.beginPacket(start + durationNanos);
            p.beginNested(TracePacket.TRACK_EVENT_FIELD_NUMBER);
            p.varint(TrackEvent.TYPE_FIELD_NUMBER, TrackEvent.Type.TYPE_SLICE_END_VALUE);
            p.varint(TrackEvent.TRACK_UUID_FIELD_NUMBER, track);
            p.endNested();
            events.endPacket();
        }
    }

    private void writeCounters(EventTypeInfo type, RecordedEvent event) {
        events.prepare();
        int n = type.counterFields.size();
        long[] trackUuids = counterTracks(type, event);
        double[] values = type.counterValues;
        for (int i = 0; i < n; i++) {
            values[i] = numericValue(event, type.counterFields.get(i));
        }
        ProtoWriter p = events.beginPacket(time.toTrace(event.getStartTime()));
        p.beginNested(TracePacket.TRACK_EVENT_FIELD_NUMBER);
        p.varint(TrackEvent.TYPE_FIELD_NUMBER, TrackEvent.Type.TYPE_COUNTER_VALUE);
        p.varint(TrackEvent.TRACK_UUID_FIELD_NUMBER, trackUuids[0]);
        p.doubleField(TrackEvent.DOUBLE_COUNTER_VALUE_FIELD_NUMBER, values[0]);
        for (int i = 1; i < n; i++) {
            p.varint(TrackEvent.EXTRA_DOUBLE_COUNTER_TRACK_UUIDS_FIELD_NUMBER, trackUuids[i]);
        }
        for (int i = 1; i < n; i++) {
            p.doubleField(TrackEvent.EXTRA_DOUBLE_COUNTER_VALUES_FIELD_NUMBER, values[i]);
        }
        p.endNested();
        events.endPacket();
    }

    /**
     * The counter tracks of one event, described if new: {@code <type>.<field>}, their uuids kept per
     * type; per-thread counters add the measured thread, {@code <type>.<field> <thread>}.
     */
    private long[] counterTracks(EventTypeInfo type, RecordedEvent event) {
        int n = type.counterTrackNames.length;
        RecordedThread subject = type.counterThreadField == null ? null : event.getThread(type.counterThreadField);
        if (subject != null) {
            String suffix = " " + Annotations.threadLabel(subject);
            long[] uuids = type.scratchTrackUuids;
            for (int i = 0; i < n; i++) {
                String name = type.counterTrackNames[i] + suffix;
                uuids[i] = tracks.namedUuid(name);
                tracks.describeNamed(events, uuids[i], name, true);
            }
            return uuids;
        }
        if (type.counterTrackUuids == null) {
            long[] uuids = new long[n];
            for (int i = 0; i < n; i++) {
                uuids[i] = tracks.namedUuid(type.counterTrackNames[i]);
            }
            type.counterTrackUuids = uuids;
        }
        for (int i = 0; i < n; i++) {
            tracks.describeNamed(events, type.counterTrackUuids[i], type.counterTrackNames[i], true);
        }
        return type.counterTrackUuids;
    }

    private static double numericValue(RecordedEvent event, CounterFields.Field f) {
        Object value = event;
        for (String step : f.path()) {
            if (!(value instanceof jdk.jfr.consumer.RecordedObject o)) {
                return 0;
            }
            value = o.getValue(step);
        }
        return value instanceof Number number ? number.doubleValue() : 0;
    }

    private void writeSample(EventTypeInfo type, RecordedEvent event) {
        if (type.sampleSequence == null) {
            type.sampleSequence = sampleSequences.computeIfAbsent(type.name, sampleSequenceFactory);
        }
        SequenceWriter seq = type.sampleSequence;
        RecordedThread thread = event.getThread("sampledThread");
        long tid = 0;
        if (thread != null) {
            events.prepare();
            long osTid = thread.getOSThreadId();
            tid = osTid > 0 ? osTid : thread.getJavaThreadId();
            trackOf(thread, type); // the thread gets its named track even if it only ever ran samples
        }
        seq.prepare();
        RecordedStackTrace stack = event.getStackTrace();
        long callstack = stack == null ? 0 : seq.callstack(stack);
        ProtoWriter p = seq.beginPacket(time.toTrace(event.getStartTime()));
        p.beginNested(TracePacket.PERF_SAMPLE_FIELD_NUMBER);
        p.varint(PerfSample.PID_FIELD_NUMBER, tracks.pid());
        p.varint(PerfSample.TID_FIELD_NUMBER, tid);
        if (callstack != 0) {
            p.varint(PerfSample.CALLSTACK_IID_FIELD_NUMBER, callstack);
        }
        p.endNested();
        seq.endPacket();
    }

    private long trackOf(RecordedThread thread, EventTypeInfo type) {
        if (thread != null) {
            return tracks.threadTrack(events, thread);
        }
        if (type.threadlessTrackUuid == 0) {
            type.threadlessTrackUuid = tracks.namedUuid(type.name);
        }
        tracks.describeNamed(events, type.threadlessTrackUuid, type.name, false);
        return type.threadlessTrackUuid;
    }
}
