package io.jtrace.jfr.format;

import java.util.Set;
import jdk.jfr.EventType;
import jdk.jfr.SettingDescriptor;
import jdk.jfr.ValueDescriptor;

/**
 * How an event type is drawn, decided once per type from its metadata, so application-defined events
 * follow the same rules as the JDK's:
 * <ul>
 * <li>{@link #SAMPLE}: a thread's stack sampled ({@code jdk.ExecutionSample}, {@code jdk.NativeMethodSample})
 * → a callstack sample, the stuff of flame graphs;
 * <li>{@link #COUNTER}: a periodic event without duration (it has a {@code period} setting, such as
 * {@code jdk.CPULoad} or {@code jdk.JavaThreadStatistics}) or a heap/metaspace summary, whose fields are
 * all quantities (numbers, structs of numbers, the thread measured, a heap summary's "when") → one
 * counter track per numeric field. Periodic events that name what they describe (flags, system
 * properties, processes, class loaders: a string or reference field) are not time series but
 * snapshots, and stay instants;
 * <li>{@link #TRACK_EVENT}: anything else → a slice on its thread's track when the event has a
 * positive duration, else an instant (an application event committed without {@code begin()}).
 * </ul>
 */
public enum EventKind {
    SAMPLE, COUNTER, TRACK_EVENT;

    private static final Set<String> SAMPLE_TYPES = Set.of("jdk.ExecutionSample", "jdk.NativeMethodSample");
    private static final Set<String> SUMMARY_TYPES = Set.of("jdk.GCHeapSummary", "jdk.MetaspaceSummary");

    public static EventKind of(EventType type) {
        if (SAMPLE_TYPES.contains(type.getName())) {
            return SAMPLE;
        }
        boolean hasDuration = type.getField("duration") != null;
        if (!hasDuration && (isPeriodic(type) || SUMMARY_TYPES.contains(type.getName())) && onlyQuantities(type)
                && !CounterFields.of(type).isEmpty()) {
            return COUNTER;
        }
        return TRACK_EVENT;
    }

    private static boolean onlyQuantities(EventType type) {
        for (ValueDescriptor f : type.getFields()) {
            String name = f.getName();
            if (Annotations.isStructural(name) || isNumeric(f) || name.equals("when")
                    || (name.equals("thread") && f.getTypeName().equals("java.lang.Thread"))) {
                continue;
            }
            boolean struct = !f.getFields().isEmpty() && !f.isArray() && f.getTypeName().startsWith("jdk.types.")
                    && f.getFields().stream().allMatch(EventKind::isNumeric);
            if (!struct) {
                return false;
            }
        }
        return true;
    }

    private static boolean isPeriodic(EventType type) {
        for (SettingDescriptor s : type.getSettingDescriptors()) {
            if (s.getName().equals("period")) {
                return true;
            }
        }
        return false;
    }

    static boolean isNumeric(ValueDescriptor field) {
        switch (field.getTypeName()) {
            case "byte":
            case "short":
            case "int":
            case "long":
            case "float":
            case "double":
                return true;
            default:
                return false;
        }
    }
}
