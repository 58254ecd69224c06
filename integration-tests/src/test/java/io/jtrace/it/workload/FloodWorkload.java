package io.jtrace.it.workload;

import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;

/**
 * Overload on purpose: {@code THREADS} platform threads {@code flood-<i>} emit slices back to back for
 * {@code MILLIS} ms, far faster than the agent can move them to the file, so its shared memory buffer
 * fills and events are dropped. Slices are named {@code slice-0} … {@code slice-3} in turn, category
 * {@code flood}: each needs its sequence's interned names to decode. Only the public jtrace API. Report
 * on stdout: {@code SLICES} emitted in all (each a begin and an end).
 */
public final class FloodWorkload {
    public static final String CATEGORY = "flood";
    public static final int NAMES = 4;
    private static final Category FLOOD = Category.of(CATEGORY);

    private FloodWorkload() {}

    public static void main(String[] args) throws InterruptedException {
        int threads = Integer.parseInt(args[0]);
        long millis = Long.parseLong(args[1]);
        String[] names = new String[NAMES];
        for (int i = 0; i < NAMES; i++) {
            names[i] = "slice-" + i;
        }
        long[] emitted = new long[threads];
        Thread[] workers = new Thread[threads];
        long deadline = System.nanoTime() + millis * 1_000_000L;
        for (int i = 0; i < threads; i++) {
            int index = i;
            workers[i] = new Thread(() -> {
                long n = 0;
                while (System.nanoTime() < deadline) {
                    for (int k = 0; k < 64; k++) {
                        TrackEvent.begin(FLOOD, names[(int) (n & (NAMES - 1))]);
                        TrackEvent.end(FLOOD);
                        n++;
                    }
                }
                emitted[index] = n;
            }, "flood-" + i);
        }
        for (Thread t : workers) {
            t.start();
        }
        long total = 0;
        for (int i = 0; i < threads; i++) {
            workers[i].join();
            total += emitted[i];
        }
        System.out.println("SLICES=" + total);
    }
}
