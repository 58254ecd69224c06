package io.jtrace.service;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that owns all of the service's state: everything else only hands it tasks, so no
 * state needs a lock. Timers hand their tasks over through {@link #post} too, so a timer task that
 * fails is logged like any other (and a periodic one keeps running).
 */
final class ServiceThread {
    // Logs as TracingService: the agent prints the short logger name, and that is the name users know.
    private static final Logger LOG = LoggerFactory.getLogger(TracingService.class);

    private final ScheduledExecutorService taskRunner;

    ServiceThread() {
        this.taskRunner = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "jtrace-service");
            t.setDaemon(true);
            return t;
        });
    }

    void post(Runnable task) {
        try {
            taskRunner.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    // A bug or a hostile input must not kill the only thread that owns the state.
                    LOG.error("jtrace service task failed", e);
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.debug("jtrace service closed; task dropped");
        }
    }

    <T> CompletableFuture<T> call(Supplier<T> task) {
        return callAfter(0, task);
    }

    /**
     * Runs {@code task} on this thread after {@code delayMillis}; its result, or what it threw, completes
     * the future. A task scheduled before a shutdown still runs (the executor's default), so no caller
     * waits forever.
     */
    <T> CompletableFuture<T> callAfter(long delayMillis, Supplier<T> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            taskRunner.schedule(() -> {
                try {
                    result.complete(task.get());
                } catch (Throwable t) {
                    // Whatever failed (our bug, or an Error thrown by a caller's sink), the caller learns
                    // of it instead of waiting forever; only the VM's own errors go on up.
                    result.completeExceptionally(t);
                    if (t instanceof VirtualMachineError) {
                        throw (VirtualMachineError) t;
                    }
                }
            }, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new IllegalStateException("jtrace service is closed"));
        }
        return result;
    }

    /** Posts {@code task} once, after {@code delayMillis}. */
    ScheduledFuture<?> postAfter(long delayMillis, Runnable task) {
        return taskRunner.schedule(() -> post(task), delayMillis, TimeUnit.MILLISECONDS);
    }

    /** Posts {@code task} every {@code periodMillis}, the first time one period from now. */
    ScheduledFuture<?> postEvery(long periodMillis, Runnable task) {
        return taskRunner.scheduleAtFixedRate(() -> post(task), periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    /** Stops taking tasks (one posted later is dropped); those already queued still run. */
    void shutdown() {
        taskRunner.shutdown();
    }
}
