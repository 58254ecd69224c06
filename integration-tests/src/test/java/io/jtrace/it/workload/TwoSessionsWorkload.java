package io.jtrace.it.workload;

import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;
import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Two sessions at once in one JVM: the agent's start-up session (categories "two-a") and a second one
 * this JVM starts on its own MBean (categories "two-b", into the file given as the first argument).
 * Three threads emit slices in "two-a", "two-b" and "two-c" while both run; the second session is
 * stopped before exit, the first is written at exit. Prints {@code SLICES_PER_CATEGORY=}.
 */
public final class TwoSessionsWorkload {
    private static final Category A = Category.of("two-a");
    private static final Category B = Category.of("two-b");
    private static final Category C = Category.of("two-c");
    private static final int SLICES = 200;

    private TwoSessionsWorkload() {}

    public static void main(String[] args) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName tracing = new ObjectName("io.jtrace:type=Tracing");
        for (int i = 0; i < 500 && !server.isRegistered(tracing); i++) {
            Thread.sleep(20); // the agent registers its MBean in the background
        }
        server.invoke(tracing, "start", new Object[] {"name=second,categories=two-b,file=" + args[0]},
                new String[] {String.class.getName()});
        Thread[] threads = new Thread[3];
        for (int t = 0; t < threads.length; t++) {
            int index = t;
            threads[t] = new Thread(() -> {
                for (int i = 0; i < SLICES; i++) {
                    for (Category c : new Category[] {A, B, C}) {
                        TrackEvent.begin(c, c.name() + "-" + index + "-" + i);
                        TrackEvent.end(c);
                    }
                }
            }, "emitter-" + t);
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        server.invoke(tracing, "stop", new Object[] {"second"}, new String[] {String.class.getName()});
        System.out.println("SLICES_PER_CATEGORY=" + threads.length * SLICES);
    }
}
