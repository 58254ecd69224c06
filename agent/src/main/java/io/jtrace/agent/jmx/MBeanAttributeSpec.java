package io.jtrace.agent.jmx;

import java.util.List;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * One attribute jvm.jmx polls: {@code object-name/attribute} or {@code object-name/attribute/key} (a key
 * of a CompositeData attribute), e.g. {@code java.lang:type=OperatingSystem/ProcessCpuLoad} or
 * {@code java.lang:type=Memory/HeapMemoryUsage/used}. The object name may be a pattern
 * ({@code java.lang:type=GarbageCollector,name=*}); it ends at the first '/' after its ':' that is not
 * inside a quoted value.
 */
public record MBeanAttributeSpec(ObjectName objectName, String attribute, String key) {
    /**
     * What jvm.jmx polls when its config names nothing: the process's and the machine's CPU load and the
     * open file descriptors. Here, in a class without a logger: the agent's options read it before logging
     * is configured.
     */
    public static final List<String> DEFAULT_ATTRIBUTES = List.of(
            "java.lang:type=OperatingSystem/ProcessCpuLoad",
            "java.lang:type=OperatingSystem/SystemCpuLoad",
            "java.lang:type=OperatingSystem/OpenFileDescriptorCount");

    /** Parses {@code text}; throws IllegalArgumentException naming it and what is wrong. */
    public static MBeanAttributeSpec parse(String text) {
        String spec = text.trim();
        int colon = spec.indexOf(':');
        if (colon <= 0) {
            throw bad(text, "no object name (domain:key=value)");
        }
        int slash = -1;
        boolean quoted = false;
        for (int i = colon + 1; i < spec.length(); i++) {
            char c = spec.charAt(i);
            if (c == '\\' && quoted) {
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (c == '/' && !quoted) {
                slash = i;
                break;
            }
        }
        if (slash < 0) {
            throw bad(text, "no attribute (object-name/attribute)");
        }
        ObjectName name;
        try {
            name = new ObjectName(spec.substring(0, slash));
        } catch (MalformedObjectNameException e) {
            throw bad(text, "bad object name: " + e.getMessage());
        }
        String rest = spec.substring(slash + 1);
        String[] parts = rest.split("/", -1);
        if (parts.length > 2 || parts[0].isEmpty() || (parts.length == 2 && parts[1].isEmpty())) {
            throw bad(text, "expected attribute or attribute/key after the object name");
        }
        return new MBeanAttributeSpec(name, parts[0], parts.length == 2 ? parts[1] : null);
    }

    private static IllegalArgumentException bad(String text, String why) {
        return new IllegalArgumentException("jvm.jmx attribute '" + text + "': " + why);
    }

    /** The counter track's name for this attribute of {@code instance} (one of the pattern's matches). */
    public String trackName(ObjectName instance) {
        return instance.getCanonicalName() + "/" + attribute + (key == null ? "" : "/" + key);
    }
}
