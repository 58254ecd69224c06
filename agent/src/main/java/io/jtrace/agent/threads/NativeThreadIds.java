package io.jtrace.agent.threads;

import io.jtrace.agent.tracks.PlatformMBeans;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The OS thread id of every live Java platform thread, from one in-process thread dump (the
 * {@code Thread.print} diagnostic command through its MBean: no attach, no native code). Java offers no
 * other way to learn another thread's OS id; the thread itself can read {@code /proc/thread-self}, which
 * is how track_event's own tracks get the same ids, so both land on one track.
 *
 * <p>A dump stops the JVM at a safepoint for about 8.5 ms per 1,000 threads (2 cores, JDK 17 and 25),
 * so the sampler takes one at the session's start, and later only for threads that their native names
 * ({@link OsThreadNames}) could not place, waiting {@link ThreadSampler#DUMP_WAIT_PER_THREAD_NANOS} per
 * live thread between dumps.
 */
final class NativeThreadIds {
    /**
     * A thread's header line: {@code "name" #<java id> [<os id>]? ... elapsed=<s>s ... nid=<os id>}. The
     * bracketed id appears from JDK 19 on; nid is hex up to JDK 18 and decimal after.
     */
    private static final Pattern HEADER = Pattern.compile(
            "^\".*\" #(\\d+) .*?elapsed=([0-9.]+)s.*? nid=(0x[0-9a-fA-F]+|\\d+)");

    /** Where a thread is: its OS id, and when it started (CLOCK_MONOTONIC ns, to the dump's 10 ms). */
    record Placement(long tid, long startNanos) {}

    private NativeThreadIds() {}

    /**
     * Java thread id to placement, for every thread the dump lists; null while the platform MBean server
     * is still starting ({@link PlatformMBeans}). Throws if the JVM has no such command.
     */
    static Map<Long, Placement> dump() throws JMException {
        MBeanServer server = PlatformMBeans.ifReady();
        if (server == null) {
            return null;
        }
        ObjectName command = new ObjectName("com.sun.management:type=DiagnosticCommand");
        long before = System.nanoTime();
        String text = (String) server.invoke(command, "threadPrint", new Object[] {new String[0]},
                new String[] {String[].class.getName()});
        return parse(text, before);
    }

    /** Parses a {@code Thread.print} text taken at {@code nowNanos}. */
    static Map<Long, Placement> parse(String text, long nowNanos) {
        Map<Long, Placement> result = new HashMap<>();
        int start = 0;
        while (start < text.length()) {
            int end = text.indexOf('\n', start);
            if (end < 0) {
                end = text.length();
            }
            if (text.charAt(start) == '"') {
                Matcher m = HEADER.matcher(text.substring(start, end));
                if (m.find()) {
                    long javaId = Long.parseLong(m.group(1));
                    long elapsedNanos = (long) (Double.parseDouble(m.group(2)) * 1e9);
                    String nid = m.group(3);
                    long tid = nid.startsWith("0x") ? Long.parseLong(nid.substring(2), 16) : Long.parseLong(nid);
                    result.put(javaId, new Placement(tid, nowNanos - elapsedNanos));
                }
            }
            start = end + 1;
        }
        return result;
    }
}
