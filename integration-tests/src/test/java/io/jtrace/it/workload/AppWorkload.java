package io.jtrace.it.workload;

import io.jtrace.api.Category;
import io.jtrace.api.Slice;
import io.jtrace.api.TrackEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * The application the integration tests trace, run in a child JVM with the agent. Arguments: threads,
 * slices per thread, explicit GCs. Worker i emits slices named "work-i-j" (alternately with
 * begin/end and with try-with-resources), each with a nested "inner" slice, and a counter. At the end it
 * prints what it did on stdout, which the test compares with the trace:
 * {@code SLICES=<n>}, {@code GCS=<collections the GarbageCollectorMXBeans counted while main ran>}.
 * Collections before main are left out: the agent starts tracing in premain, and its own start-up
 * allocations (its trace buffer lives in this heap) can set off a young collection before its GC source
 * listens.
 */
public final class AppWorkload {
    private static final Category APP = Category.of("app");

    private AppWorkload() {}

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int slices = Integer.parseInt(args[1]);
        int gcs = Integer.parseInt(args[2]);
        long collectionsBefore = ExplicitGc.collections();
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int worker = i;
            Thread t = new Thread(() -> work(worker, slices), "app-worker-" + i);
            workers.add(t);
            t.start();
        }
        for (Thread t : workers) {
            t.join();
        }
        for (int i = 0; i < gcs; i++) {
            ExplicitGc.collect();
        }
        System.out.println("SLICES=" + threads * slices);
        System.out.println("GCS=" + (ExplicitGc.collections() - collectionsBefore));
    }

    private static void work(int worker, int slices) {
        for (int j = 0; j < slices; j++) {
            String name = "work-" + worker + "-" + j;
            if (j % 2 == 0) {
                TrackEvent.begin(APP, name);
                inner();
                TrackEvent.end(APP);
            } else {
                try (Slice s = TrackEvent.slice(APP, name)) {
                    inner();
                }
            }
            TrackEvent.counter(APP, "progress-" + worker, j);
        }
    }

    private static void inner() {
        try (Slice s = TrackEvent.slice(APP, "inner")) {
            long end = System.nanoTime() + 20_000;
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
        }
    }
}
