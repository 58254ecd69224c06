package io.jtrace.it.workload;

import io.jtrace.api.Category;
import io.jtrace.api.Slice;
import io.jtrace.api.TrackEvent;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * JDK 21+ (virtual threads, made through {@link VirtualThreads}):
 * {@code threads} virtual threads, every other one named {@code vt-<i>} and the rest unnamed, each doing
 * {@code steps} times an API slice "api-vstep", right after it a JFR event {@code it.VirtualStep} (a
 * slice, about 50 µs), then {@code Thread.sleep(25)} (a {@code jdk.ThreadSleep} above default.jfc's
 * 20 ms threshold). Prints {@code VIRTUAL=<threads>}.
 */
public final class VirtualThreadsJfrWorkload {
    private static final Category APP = Category.of("app");

    @Name("it.VirtualStep")
    @Label("Virtual step")
    static final class VirtualStep extends Event {
        @Label("step")
        int step;
    }

    private VirtualThreadsJfrWorkload() {}

    public static void main(String[] args) throws Throwable {
        int threads = Integer.parseInt(args[0]);
        int steps = Integer.parseInt(args[1]);
        new VirtualStep(); // JFR instruments the class now, not inside a step
        Thread[] all = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            all[i] = VirtualThreads.unstarted(i % 2 == 0 ? "vt-" + i : null, () -> work(steps));
            all[i].start();
        }
        for (Thread t : all) {
            t.join();
        }
        System.out.println("VIRTUAL=" + threads);
    }

    private static void work(int steps) {
        for (int i = 0; i < steps; i++) {
            try (Slice s = TrackEvent.slice(APP, "api-vstep")) {
                spin();
            }
            VirtualStep e = new VirtualStep();
            e.begin();
            spin();
            e.step = i;
            e.commit();
            try {
                Thread.sleep(25);
            } catch (InterruptedException ex) {
                return;
            }
        }
    }

    private static void spin() {
        long end = System.nanoTime() + 50_000;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }
}
