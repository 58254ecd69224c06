package io.jtrace.shm.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Runs one task on several threads at once, all released together by a barrier, for tests of what
 * racing threads each get. Closing it stops its threads.
 */
public final class Race implements AutoCloseable {
    /** What each racing thread does; {@code thread} is its index, 0 to threads − 1. */
    @FunctionalInterface
    public interface Task<T> {
        T run(int thread) throws Exception;
    }

    private final int threads;
    private final ExecutorService pool;

    public Race(int threads) {
        this.threads = threads;
        this.pool = Executors.newFixedThreadPool(threads);
    }

    /**
     * Runs {@code task} on every thread, starting them at once; returns what each returned, in thread
     * order. A task's exception fails the call; waiting is bounded (liveness only).
     */
    public <T> List<T> run(Task<T> task) throws Exception {
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Future<T>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                start.await();
                return task.run(thread);
            }));
        }
        List<T> results = new ArrayList<>();
        for (Future<T> f : futures) {
            results.add(f.get(60, TimeUnit.SECONDS));
        }
        return results;
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
