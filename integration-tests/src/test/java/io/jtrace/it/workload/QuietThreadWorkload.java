package io.jtrace.it.workload;

import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;

/**
 * A thread that writes one slice ("quiet-slice") and goes quiet: its events stay in its writer's chunk.
 * Prints READY once the slice is written, then waits for a line on stdin; the thread then writes a
 * second slice ("after-flush") and the JVM exits normally.
 */
public final class QuietThreadWorkload {
    private static final Category QUIET = Category.of("quiet");

    private QuietThreadWorkload() {}

    public static void main(String[] args) throws Exception {
        CountDownLatch wrote = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        Thread quiet = new Thread(() -> {
            TrackEvent.begin(QUIET, "quiet-slice");
            TrackEvent.end(QUIET);
            wrote.countDown();
            try {
                go.await();
            } catch (InterruptedException e) {
                return;
            }
            TrackEvent.begin(QUIET, "after-flush");
            TrackEvent.end(QUIET);
        }, "quiet-thread");
        quiet.start();
        wrote.await();
        System.out.println("READY");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        go.countDown();
        quiet.join();
    }
}
