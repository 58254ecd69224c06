package io.jtrace.jfr.format;

import java.util.ArrayList;
import java.util.List;
import jdk.jfr.EventType;
import jdk.jfr.ValueDescriptor;

/**
 * The fields of a counter event that become counter tracks: numeric ones, also inside nested structs
 * (as {@code heapSpace.committedSize}), except identifiers ({@code gcId}, {@code id}), which are not
 * quantities and would only draw a staircase.
 */
final class CounterFields {
    /** {@code path} is the field's chain of names from the event down to the number. */
    record Field(String name, String[] path, boolean floating) {}

    private CounterFields() {}

    static List<Field> of(EventType type) {
        List<Field> fields = new ArrayList<>();
        collect(type.getFields(), "", new ArrayList<>(), fields, 0);
        return fields;
    }

    private static void collect(List<ValueDescriptor> descriptors, String prefix, List<String> path,
            List<Field> into, int depth) {
        for (ValueDescriptor d : descriptors) {
            String name = d.getName();
            if (depth == 0 && (name.equals("startTime") || name.equals("duration") || name.equals("eventThread")
                    || name.equals("stackTrace"))) {
                continue;
            }
            if (name.equals("id") || name.endsWith("Id") || d.isArray()) {
                continue;
            }
            List<String> here = new ArrayList<>(path);
            here.add(name);
            if (EventKind.isNumeric(d)) {
                boolean floating = d.getTypeName().equals("float") || d.getTypeName().equals("double");
                into.add(new Field(prefix + name, here.toArray(new String[0]), floating));
            } else if (!d.getFields().isEmpty() && depth < 2 && !isReference(d)) {
                collect(d.getFields(), prefix + name + ".", here, into, depth + 1);
            }
        }
    }

    /** Threads, classes, stack traces…: things a counter cannot plot. */
    private static boolean isReference(ValueDescriptor d) {
        String t = d.getTypeName();
        return t.equals("java.lang.Thread") || t.equals("java.lang.Class") || t.equals("jdk.types.StackTrace")
                || t.equals("jdk.types.ClassLoader") || t.equals("jdk.types.Module") || t.equals("jdk.types.Package")
                || t.equals("java.lang.ThreadGroup") || t.equals("jdk.types.Method");
    }
}
