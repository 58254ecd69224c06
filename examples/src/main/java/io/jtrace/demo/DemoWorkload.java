package io.jtrace.demo;

import io.jtrace.api.Category;
import io.jtrace.api.Slice;
import io.jtrace.api.TrackEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A small workload to trace: worker threads handling "requests" as nested slices, a queue-depth
 * counter, some allocation and a few explicit GCs. Run it with the agent (see README).
 */
public final class DemoWorkload {
    private static final Category REQUESTS = Category.of("requests");
    private static final Category STORAGE = Category.of("storage");

    private DemoWorkload() {}

    public static void main(String[] args) throws InterruptedException {
        int threads = 4;
        int requestsPerThread = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread worker = new Thread(() -> work(requestsPerThread), "worker-" + i);
            workers.add(worker);
            worker.start();
        }
        for (int gc = 0; gc < 3; gc++) {
            Thread.sleep(200);
            TrackEvent.instant(REQUESTS, "explicit GC");
            System.gc();
        }
        for (Thread worker : workers) {
            worker.join();
        }
    }

    private static void work(int requests) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        List<byte[]> retained = new ArrayList<>();
        for (int r = 0; r < requests; r++) {
            try (Slice request = TrackEvent.slice(REQUESTS, "handle request")) {
                TrackEvent.counter(REQUESTS, "queue depth", requests - r);
                try (Slice parse = TrackEvent.slice(REQUESTS, "parse")) {
                    spin(random.nextInt(50, 200));
                }
                try (Slice load = TrackEvent.slice(STORAGE, "load")) {
                    retained.add(new byte[random.nextInt(1024, 64 * 1024)]);
                    if (retained.size() > 200) {
                        retained.clear();
                    }
                    spin(random.nextInt(100, 400));
                }
                try (Slice respond = TrackEvent.slice(REQUESTS, "respond")) {
                    spin(random.nextInt(20, 100));
                }
            }
        }
    }

    /** Busy-waits about {@code micros} microseconds, so slices have visible, varied lengths. */
    private static void spin(long micros) {
        long end = System.nanoTime() + micros * 1000;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }
}
