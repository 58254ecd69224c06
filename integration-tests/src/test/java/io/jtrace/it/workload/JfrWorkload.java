package io.jtrace.it.workload;

import io.jtrace.api.Category;
import io.jtrace.api.Slice;
import io.jtrace.api.TrackEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * Runs with the agent and a JFR recording at once. Thread {@code jfr-it-worker} does, {@code steps}
 * times, an API slice "api-step" and right after it a JFR event {@code it.Step} (a slice too), each
 * about 50 µs long, so a merged trace can show both on one track in order. The time between the two, as
 * the thread measured it ({@code System.nanoTime()}; a pause of the machine can make it long), goes to
 * {@code gaps.txt}, one line per step. Prints {@code STEPS=<n>}. A second argument keeps the JVM alive
 * that many milliseconds after the steps.
 */
public final class JfrWorkload {
    private static final Category APP = Category.of("app");

    @Name("it.Step")
    @Label("Step")
    static final class Step extends Event {
        @Label("step")
        int step;
    }

    private JfrWorkload() {}

    public static void main(String[] args) throws Exception {
        int steps = Integer.parseInt(args[0]);
        // Loading the event class makes JFR instrument it (milliseconds): done here, not between a step's two events.
        new Step();
        long[] gaps = new long[steps];
        Thread worker = new Thread(() -> {
            for (int i = 0; i < steps; i++) {
                long before;
                try (Slice s = TrackEvent.slice(APP, "api-step")) {
                    spin();
                    before = System.nanoTime();
                }
                Step e = new Step();
                e.begin();
                gaps[i] = System.nanoTime() - before;
                spin();
                e.step = i;
                e.commit();
                try {
                    Thread.sleep(2);
                } catch (InterruptedException ex) {
                    return;
                }
            }
        }, "jfr-it-worker");
        worker.start();
        worker.join();
        StringBuilder lines = new StringBuilder();
        for (long g : gaps) {
            lines.append(g).append('\n');
        }
        Files.writeString(Path.of("gaps.txt"), lines);
        System.out.println("STEPS=" + steps);
        if (args.length > 1) {
            // Stay alive while a session with a duration ends on its own, before the JVM exits.
            Thread.sleep(Long.parseLong(args[1]));
        }
    }

    private static void spin() {
        long end = System.nanoTime() + 50_000;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }
}
