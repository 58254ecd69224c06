package io.jtrace.it.workload;

import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;

/**
 * Runs without an agent, compiled against the API (on its classpath), emitting a "tick" slice every
 * few milliseconds for the given number of seconds: a no-op until an agent is attached to it.
 */
public final class AttachWorkload {
    private AttachWorkload() {}

    public static void main(String[] args) throws Exception {
        Category app = Category.of("app");
        long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L;
        System.out.println("READY");
        System.out.flush();
        while (System.nanoTime() < end) {
            TrackEvent.begin(app, "tick");
            Thread.sleep(2);
            TrackEvent.end(app);
        }
    }
}
