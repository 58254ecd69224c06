package io.jtrace.it.workload;

import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;
import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;

/**
 * Overload on purpose: {@code THREADS} platform threads {@code flood-<i>} emit slices back to back for
 * {@code MILLIS} ms, far faster than the agent can move them to the file, so its shared memory buffer
 * fills and events are dropped. Slices are named {@code slice-0} … {@code slice-3} in turn, category
 * {@code flood}: each needs its sequence's interned names to decode. Only the public jtrace API. Report
 * on stdout: {@code SLICES} emitted in all (each a begin and an end).
 *
 * <p>With a third argument {@code MAX_MILLIS}, the flood goes on after {@code MILLIS} until the agent's
 * MBean ({@code io.jtrace:type=Tracing}) shows a session that lost events, looking every 100 ms, for at
 * most {@code MAX_MILLIS} ms in all: whether a fixed flood overloads the agent depends on the machine
 * and on how warm the pipeline is, and a test of what overload loses needs overload.
 */
public final class FloodWorkload {
    public static final String CATEGORY = "flood";
    public static final int NAMES = 4;
    private static final Category FLOOD = Category.of(CATEGORY);
    private static final long LOOK_MILLIS = 100;

    /** Set by main when the flood ends; read by the workers every 64 slices. */
    private static volatile boolean stop;

    private FloodWorkload() {}

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        long millis = Long.parseLong(args[1]);
        long maxMillis = args.length > 2 ? Long.parseLong(args[2]) : millis;
        String[] names = new String[NAMES];
        for (int i = 0; i < NAMES; i++) {
            names[i] = "slice-" + i;
        }
        long[] emitted = new long[threads];
        Thread[] workers = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            int index = i;
            workers[i] = new Thread(() -> {
                long n = 0;
                while (!stop) {
                    for (int k = 0; k < 64; k++) {
                        TrackEvent.begin(FLOOD, names[(int) (n & (NAMES - 1))]);
                        TrackEvent.end(FLOOD);
                        n++;
                    }
                }
                emitted[index] = n;
            }, "flood-" + i);
        }
        long start = System.nanoTime();
        for (Thread t : workers) {
            t.start();
        }
        try {
            Thread.sleep(millis);
            while (maxMillis > millis && !agentLostEvents() && (System.nanoTime() - start) / 1_000_000L < maxMillis) {
                Thread.sleep(LOOK_MILLIS);
            }
        } finally {
            stop = true;
        }
        long total = 0;
        for (int i = 0; i < threads; i++) {
            workers[i].join();
            total += emitted[i];
        }
        System.out.println("SLICES=" + total);
    }

    /** Whether a session of the agent counted lost events so far; not yet while its MBean is not registered. */
    private static boolean agentLostEvents() throws JMException {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName tracing = new ObjectName("io.jtrace:type=Tracing");
        if (!server.isRegistered(tracing)) {
            return false;
        }
        for (Object session : (Object[]) server.getAttribute(tracing, "Sessions")) {
            if ((Long) ((CompositeData) session).get("eventsLost") > 0) {
                return true;
            }
        }
        return false;
    }
}
