package io.jtrace.jfr.format;

import java.util.List;
import jdk.jfr.EventType;
import jdk.jfr.ValueDescriptor;

/**
 * What the mapper decided about one event type, computed the first time the type is seen, and what it
 * keeps per type so that an event costs no string building and no lookup by name: the track names and
 * uuids the type's events go to, the iids of its names on the event sequence, its count.
 */
final class EventTypeInfo {
    final String name;
    final EventKind kind;
    final List<ValueDescriptor> fields;
    final List<CounterFields.Field> counterFields;
    /** {@code <type>.<field>} per counter field: the counter tracks' names (before a per-thread suffix). */
    final String[] counterTrackNames;
    /** Per-thread counters: the field naming the thread they measure ({@code eventThread} for jdk.ThreadCPULoad). */
    final String counterThreadField;
    final boolean hasStackTrace;
    final boolean hasDuration;

    /** The counter tracks' uuids when the type has no per-thread suffix; null until first needed. */
    long[] counterTrackUuids;
    /** Scratch for one event's counter values and (per-thread counters) track uuids. */
    final double[] counterValues;
    final long[] scratchTrackUuids;
    /** The track of the type's events that have no thread; 0 until first needed. */
    long threadlessTrackUuid;
    /** The sequence of a sample type's callstack samples; null until first needed. */
    SequenceWriter sampleSequence;

    /** The generation of the event sequence that {@link #categoryIid}, {@link #nameIid} and {@link #annotationIids} belong to. */
    private long internedGeneration = -1;
    long categoryIid;
    long nameIid;
    long[] annotationIids;

    long written;

    EventTypeInfo(EventType type) {
        this.name = type.getName();
        this.kind = EventKind.of(type);
        this.fields = type.getFields();
        this.counterFields = kind == EventKind.COUNTER ? CounterFields.of(type) : List.of();
        this.counterTrackNames = new String[counterFields.size()];
        for (int i = 0; i < counterTrackNames.length; i++) {
            counterTrackNames[i] = name + "." + counterFields.get(i).name();
        }
        this.counterValues = new double[counterFields.size()];
        this.scratchTrackUuids = new long[counterFields.size()];
        this.counterThreadField = counterThreadField(type);
        this.hasStackTrace = type.getField("stackTrace") != null;
        this.hasDuration = type.getField("duration") != null;
    }

    /**
     * Makes {@link #categoryIid}, {@link #nameIid} and {@link #annotationIids} those of {@code seq}'s
     * current interning state, interning them again only when the sequence has started over since.
     */
    void internNames(SequenceWriter seq, String category) {
        if (internedGeneration == seq.generation()) {
            return;
        }
        categoryIid = seq.category(category);
        nameIid = seq.eventName(name);
        annotationIids = Annotations.internNames(seq, fields);
        internedGeneration = seq.generation();
    }

    private static String counterThreadField(EventType type) {
        ValueDescriptor thread = type.getField("thread");
        if (thread != null && thread.getTypeName().equals("java.lang.Thread")) {
            return "thread";
        }
        return type.getName().equals("jdk.ThreadCPULoad") ? "eventThread" : null;
    }
}
