package io.jtrace.cli.record;

import io.jtrace.cli.attach.ExitCodes;
import io.jtrace.cli.trace.LossCounts;
import io.jtrace.consumer.TracingConsumer;
import io.jtrace.protos.TraceConfig;
import io.jtrace.service.buffer.PacketSink;
import io.jtrace.service.output.TraceFileReader;
import io.jtrace.service.output.WholeTraceFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One recording over a consumer connection: starts the session, shows progress while it runs, and once
 * it has ended — its duration elapsed, {@link #requestStop} (Ctrl-C), or max_file_size_bytes reached —
 * frees the session and puts the file in place. The file is written beside its target and moved there
 * whole: a recording the service refused, or whose file could not be written, leaves the target as it was.
 *
 * <p>Who writes the file: the service itself when it can ({@link #serviceWrites}: a session with
 * write_into_file into the temporary file, as Perfetto's own command line records long traces). The
 * service then applies its rule for file sessions: a chunk not yet in the file is never overwritten, so
 * overload fills the producers' shared memory, where every dropped event is counted, and every event in
 * the file stays decodable. A service that may not write files for this consumer (another user's) is read
 * every period instead, and its ring buffer may overwrite what a read came too late for (counted as
 * chunks overwritten).
 *
 * <p>A session that fails or whose connection is lost after packets were read keeps them: every packet
 * in the file is whole, and the trace up to a crash of the traced JVM is the trace most worth keeping.
 * That ends with {@link Outcome#error} set and exit code 1.
 */
final class Recording {
    /** How long any one answer of the service may take before the recording gives up on it. */
    static final long ANSWER_TIMEOUT_MS = 30_000;
    /** How long a stop may take: the service stops data sources and flushes (5 s each by default). */
    static final long STOP_TIMEOUT_MS = 30_000;
    /**
     * Longest wait between the loop's checks (the stop timeout, the duration's deadline, the file's size,
     * progress), whatever the read period: file_write_period_ms may ask for reads weeks apart.
     */
    private static final long CHECK_PERIOD_MS = 1_000;

    /** How the recording ended: what the file holds, and the error if it did not end normally. */
    record Outcome(int exitCode, String error, long packets, long bytes, long elapsedNanos, LossCounts losses,
                   boolean fileWritten) {}

    private final TracingConsumer consumer;
    private final RecordOptions options;
    private final WholeTraceFile file;
    /** The service streams the session into {@code file}'s temporary file; else this command reads it. */
    private final boolean serviceWrites;
    private final ProgressLine progress;
    private final AtomicBoolean stopRequested = new AtomicBoolean();
    /** The first failure to write the file, seen on the connection's reader thread; checked after each read. */
    private volatile IOException writeFailure;
    private volatile long stopRequestedAtNanos;
    private long reads;
    private LossCounts losses = LossCounts.NONE;

    /** {@code file} from {@link WholeTraceFile#forAnotherWriter} when the service writes it, else from {@code beside}. */
    Recording(TracingConsumer consumer, RecordOptions options, WholeTraceFile file, boolean serviceWrites,
              ProgressLine progress) {
        this.consumer = consumer;
        this.options = options;
        this.file = file;
        this.serviceWrites = serviceWrites;
        this.progress = progress;
    }

    /** Asks the service to end the session (Ctrl-C); {@link #run} then saves the file and returns. Any thread. */
    void requestStop() {
        if (stopRequested.compareAndSet(false, true)) {
            stopRequestedAtNanos = System.nanoTime();
            // The session's end (the enableTracing future) is what run() waits for; this one only asks.
            consumer.disableTracing();
        }
    }

    /** Runs the recording to its end on the calling thread. */
    Outcome run() {
        long start = System.nanoTime();
        TraceConfig config = serviceWrites
                ? RecordOptions.forService(options.config(), file.temp(), options.readPeriodMillis(), options.maxFileBytes())
                : options.config();
        CompletableFuture<Void> ended = consumer.enableTracing(config);
        long deadline = config.getDurationMs() != 0 // a uint32
                ? start + TimeUnit.MILLISECONDS.toNanos(Integer.toUnsignedLong(config.getDurationMs()) + STOP_TIMEOUT_MS) : Long.MAX_VALUE;
        String error = null;
        long readPeriodNanos = TimeUnit.MILLISECONDS.toNanos(options.readPeriodMillis());
        long lastRead = start;
        try {
            while (!hasEnded(ended, Math.min(options.readPeriodMillis(), CHECK_PERIOD_MS))) {
                long now = System.nanoTime();
                if (!serviceWrites && now - lastRead >= readPeriodNanos) {
                    lastRead = now;
                    readOnce();
                }
                losses = stats();
                progress.update(System.nanoTime() - start, bytes(), serviceWrites ? -1 : file.writer().packets(), losses);
                // The service stops a session whose file reached max_file_size_bytes itself.
                if (!serviceWrites && options.maxFileBytes() > 0 && bytes() >= options.maxFileBytes()) {
                    requestStop();
                }
                if (System.nanoTime() > deadline) {
                    // The service owns the duration; this only keeps a lost end from hanging the command.
                    requestStop();
                }
                if (stopRequested.get() && System.nanoTime() - stopRequestedAtNanos
                        > TimeUnit.MILLISECONDS.toNanos(STOP_TIMEOUT_MS)) {
                    throw new RecordingException("the service did not end the session within " + STOP_TIMEOUT_MS
                            + " ms of the stop");
                }
            }
        } catch (RecordingException e) {
            error = e.getMessage();
        }
        if (serviceWrites && refusesFileWriting(error)) {
            // No session was created: the connection stays open for the command to read the trace instead.
            progress.finish();
            return new Outcome(ExitCodes.COMMAND_FAILED, error, 0, 0, System.nanoTime() - start, losses, false);
        }
        if (serviceWrites) {
            // The service wrote the file to its end, its trace stats last, before it ended the session.
            losses = stats();
        } else if (error == null || reads > 0) {
            // The last read after the end brings the service's trace stats; after a failure, what is left.
            try {
                readOnce();
                losses = stats();
            } catch (RecordingException e) {
                error = error != null ? error : e.getMessage();
            }
        }
        finish(error == null);
        long elapsed = System.nanoTime() - start;
        progress.finish();
        if (writeFailure != null) {
            return new Outcome(ExitCodes.COMMAND_FAILED, "writing " + options.out() + " failed: " + writeFailure,
                    0, 0, elapsed, losses, false);
        }
        long packets;
        long bytes = bytes();
        try {
            if (!serviceWrites || bytes == 0) {
                packets = serviceWrites ? 0 : file.writer().packets();
            } else {
                WholePackets kept = error == null ? WholePackets.keep(file.temp()) : WholePackets.keepOnceSettled(file.temp());
                packets = kept.packets();
                bytes = kept.bytes();
                if (kept.cut() != null) {
                    // Its JVM ended while the service wrote it: what came whole is kept, and said so.
                    error = (error != null ? error + "; " : "") + "the trace the service wrote is cut (did the JVM exit?): "
                            + kept.cut() + "; kept its " + packets + " whole packets";
                }
            }
        } catch (IOException e) {
            return new Outcome(ExitCodes.COMMAND_FAILED, "the trace the service wrote cannot be read: " + e.getMessage(),
                    0, 0, elapsed, losses, false);
        }
        boolean keep = packets > 0;
        if (keep) {
            try {
                file.commit();
            } catch (IOException e) {
                return new Outcome(ExitCodes.COMMAND_FAILED, "writing " + options.out() + " failed: " + e, 0, 0,
                        elapsed, losses, false);
            }
        }
        return new Outcome(error == null ? ExitCodes.OK : ExitCodes.COMMAND_FAILED, error, packets, bytes, elapsed,
                losses, keep);
    }

    /** Whether the service refused to write the file for this consumer (so the command must read instead). */
    static boolean refusedFileWriting(Outcome outcome) {
        return !outcome.fileWritten() && refusesFileWriting(outcome.error());
    }

    /** The service's refusal of write_into_file (another user's consumer, or a path it cannot write). */
    private static boolean refusesFileWriting(String error) {
        return error != null && (error.contains("write_into_file") || error.contains("output_path"));
    }

    private long bytes() {
        if (!serviceWrites) {
            return file.writer().bytes();
        }
        try {
            return Files.size(file.temp());
        } catch (IOException e) {
            return 0;
        }
    }

    /** True once the session has ended; a session that failed or was refused throws with the service's reason. */
    private boolean hasEnded(CompletableFuture<Void> ended, long waitMillis) throws RecordingException {
        try {
            ended.get(waitMillis, TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            throw new RecordingException(reason(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RecordingException("interrupted");
        }
    }

    /** One packet read, into the file; runs on the connection's reader thread. */
    private void write(byte[] packet) {
        if (writeFailure != null) {
            return;
        }
        try {
            file.writer().packet(packet, 0, packet.length, PacketSink.NO_TRAILER, 0);
        } catch (RuntimeException e) {
            writeFailure = e.getCause() instanceof IOException io ? io : new IOException(e);
        }
    }

    private void readOnce() throws RecordingException {
        answer(consumer.readBuffers(this::write), "reading the trace");
        reads++;
        if (writeFailure != null) {
            throw new RecordingException("writing " + options.out() + " failed: " + writeFailure);
        }
        try {
            // Each period's packets reach the disk: a killed command leaves whole packets in the temp file.
            file.writer().flush();
        } catch (IOException e) {
            writeFailure = e;
            throw new RecordingException("writing " + options.out() + " failed: " + e);
        }
    }

    private LossCounts stats() {
        try {
            return LossCounts.of(answer(consumer.traceStats(), "reading the trace stats"));
        } catch (RecordingException e) {
            return losses; // only the progress line's figures: the trace file has the service's own stats
        }
    }

    /** Frees the session (best effort: closing the connection frees it too) and closes the connection. */
    private void finish(boolean ended) {
        try {
            if (!ended) {
                consumer.disableTracing().get(ANSWER_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            }
            consumer.freeBuffers().get(ANSWER_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // The session or the connection is gone already; close() below releases what is left.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            consumer.close();
        }
    }

    private static <T> T answer(Future<T> future, String what) throws RecordingException {
        try {
            return future.get(ANSWER_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new RecordingException("the service did not answer within " + ANSWER_TIMEOUT_MS + " ms ("
                    + what + ")");
        } catch (ExecutionException e) {
            throw new RecordingException(what + ": " + reason(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RecordingException("interrupted");
        }
    }

    private static String reason(Throwable cause) {
        return cause.getMessage() != null ? cause.getMessage() : cause.toString();
    }

    /** The stdout line of a finished recording. */
    static String summary(Outcome o, java.nio.file.Path out) {
        return String.format(Locale.ROOT, "%s: %,d bytes, %,d packets in %.1f s, %s", out, o.bytes(), o.packets(),
                o.elapsedNanos() / 1e9, o.losses());
    }

    private static final class RecordingException extends Exception {
        RecordingException(String message) {
            super(message);
        }
    }
}
