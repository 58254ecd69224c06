package io.jtrace.jfr.format;

import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.protos.DebugAnnotation;
import io.jtrace.shm.proto.ProtoWriter;
import java.util.List;
import jdk.jfr.ValueDescriptor;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedClassLoader;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedObject;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;

/**
 * An event's fields as debug annotations: numbers, booleans and strings as themselves; threads, classes,
 * methods by name; structs as dictionaries; arrays as arrays. What makes the event's place on the
 * timeline (start time, duration, thread, stack trace) is drawn, not annotated. Strings and arrays are
 * capped so one event can never make a packet unboundedly large.
 */
final class Annotations {
    static final int MAX_STRING_CHARS = 16 * 1024;
    static final int MAX_ARRAY_ELEMENTS = 256;
    private static final int MAX_DEPTH = 4;

    private Annotations() {}

    /** Whether a top-level field is drawn rather than annotated. */
    static boolean isStructural(String field) {
        return field.equals("startTime") || field.equals("duration") || field.equals("eventThread")
                || field.equals("stackTrace");
    }

    /** Interns the names of the event's annotated fields; index i is field i's iid, 0 when not annotated. */
    static long[] internNames(SequenceWriter seq, List<ValueDescriptor> fields) {
        long[] iids = new long[fields.size()];
        for (int i = 0; i < iids.length; i++) {
            String name = fields.get(i).getName();
            if (!isStructural(name)) {
                iids[i] = seq.annotationName(name);
            }
        }
        return iids;
    }

    static void write(ProtoWriter p, int field, RecordedObject event, List<ValueDescriptor> fields, long[] nameIids) {
        for (int i = 0; i < nameIids.length; i++) {
            if (nameIids[i] == 0) {
                continue;
            }
            Object value = event.getValue(fields.get(i).getName());
            if (value == null) {
                continue;
            }
            p.beginNested(field);
            p.varint(DebugAnnotation.NAME_IID_FIELD_NUMBER, nameIids[i]);
            writeValue(p, value, 0);
            p.endNested();
        }
    }

    private static void writeValue(ProtoWriter p, Object value, int depth) {
        if (value instanceof Boolean b) {
            p.bool(DebugAnnotation.BOOL_VALUE_FIELD_NUMBER, b);
        } else if (value instanceof Float || value instanceof Double) {
            p.doubleField(DebugAnnotation.DOUBLE_VALUE_FIELD_NUMBER, ((Number) value).doubleValue());
        } else if (value instanceof Number n) {
            p.varint(DebugAnnotation.INT_VALUE_FIELD_NUMBER, n.longValue());
        } else if (value instanceof String s) {
            p.string(DebugAnnotation.STRING_VALUE_FIELD_NUMBER, cap(s));
        } else if (value instanceof RecordedThread t) {
            p.string(DebugAnnotation.STRING_VALUE_FIELD_NUMBER, threadLabel(t));
        } else if (value instanceof RecordedClass c) {
            p.string(DebugAnnotation.STRING_VALUE_FIELD_NUMBER, cap(c.getName()));
        } else if (value instanceof RecordedMethod m) {
            p.string(DebugAnnotation.STRING_VALUE_FIELD_NUMBER, cap(SequenceWriter.functionName(m)));
        } else if (value instanceof RecordedClassLoader l) {
            String name = l.getName();
            p.string(DebugAnnotation.STRING_VALUE_FIELD_NUMBER,
                    name != null ? cap(name) : l.getType() != null ? cap(l.getType().getName()) : "bootstrap");
        } else if (value instanceof RecordedStackTrace s) {
            p.string(DebugAnnotation.STRING_VALUE_FIELD_NUMBER,
                    s.getFrames().isEmpty() ? "" : cap(SequenceWriter.functionName(s.getFrames().get(0).getMethod())));
        } else if (value instanceof RecordedObject o && depth < MAX_DEPTH) {
            for (ValueDescriptor d : o.getFields()) {
                Object v = o.getValue(d.getName());
                if (v == null) {
                    continue;
                }
                p.beginNested(DebugAnnotation.DICT_ENTRIES_FIELD_NUMBER);
                p.string(DebugAnnotation.NAME_FIELD_NUMBER, d.getName());
                writeValue(p, v, depth + 1);
                p.endNested();
            }
        } else if (value instanceof Object[] array && depth < MAX_DEPTH) {
            int n = Math.min(array.length, MAX_ARRAY_ELEMENTS);
            for (int i = 0; i < n; i++) {
                if (array[i] == null) {
                    continue;
                }
                p.beginNested(DebugAnnotation.ARRAY_VALUES_FIELD_NUMBER);
                writeValue(p, array[i], depth + 1);
                p.endNested();
            }
        } else {
            p.string(DebugAnnotation.STRING_VALUE_FIELD_NUMBER, cap(String.valueOf(value)));
        }
    }

    static String threadLabel(RecordedThread t) {
        String name = ThreadNames.of(t);
        long tid = t.getOSThreadId();
        if (tid > 0) {
            return name + " (" + tid + ")";
        }
        return ProcessTrack.virtualThreadTrackName(name, t.getJavaThreadId());
    }

    private static String cap(String s) {
        return s.length() <= MAX_STRING_CHARS ? s : s.substring(0, MAX_STRING_CHARS) + "…";
    }
}
