package io.jtrace.jfr.format;

import java.util.List;
import jdk.jfr.EventType;
import jdk.jfr.ValueDescriptor;

/** What the mapper decided about one event type, computed the first time the type is seen. */
final class EventTypeInfo {
    final String name;
    final EventKind kind;
    final List<ValueDescriptor> fields;
    final List<CounterFields.Field> counterFields;
    /** Per-thread counters: the field naming the thread they measure ({@code eventThread} for jdk.ThreadCPULoad). */
    final String counterThreadField;
    final boolean hasStackTrace;
    final boolean hasDuration;

    EventTypeInfo(EventType type) {
        this.name = type.getName();
        this.kind = EventKind.of(type);
        this.fields = type.getFields();
        this.counterFields = kind == EventKind.COUNTER ? CounterFields.of(type) : List.of();
        this.counterThreadField = counterThreadField(type);
        this.hasStackTrace = type.getField("stackTrace") != null;
        this.hasDuration = type.getField("duration") != null;
    }

    private static String counterThreadField(EventType type) {
        ValueDescriptor thread = type.getField("thread");
        if (thread != null && thread.getTypeName().equals("java.lang.Thread")) {
            return "thread";
        }
        return type.getName().equals("jdk.ThreadCPULoad") ? "eventThread" : null;
    }
}
