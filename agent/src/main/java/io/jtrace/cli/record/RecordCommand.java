package io.jtrace.cli.record;

import io.jtrace.service.output.FileErrors;
import io.jtrace.cli.attach.ExitCodes;
import io.jtrace.cli.attach.TargetJvm;
import io.jtrace.cli.attach.UnreachableException;
import io.jtrace.consumer.TracingConsumer;
import io.jtrace.ipc.SocketPaths;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TracingServiceState;
import io.jtrace.service.output.WholeTraceFile;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code jtrace record}: records a trace through a tracing service's consumer socket — a JVM's own
 * ({@code --pid}, loading the agent into it first when it serves none), the daemon's (the default), or
 * any ({@code --socket}) — into a file. Exit codes: {@link ExitCodes}.
 */
public final class RecordCommand {
    /** How long a JVM that was just given the agent has to open its consumer socket. */
    static final long SOCKET_TIMEOUT_MS = 15_000;
    /** How long a Ctrl-C waits for the recording to end and save: a stop, then the last read and the move. */
    static final long STOP_WAIT_MS = Recording.STOP_TIMEOUT_MS + 2 * Recording.ANSWER_TIMEOUT_MS;

    private final ConsumerConnector connector;
    private final SocketPaths sockets;
    private final PrintStream out;
    private final PrintStream err;
    private final boolean terminal;
    private final StopHook stopHook;
    private final long quietMillis;

    public RecordCommand(ConsumerConnector connector, SocketPaths sockets, PrintStream out, PrintStream err,
                         boolean terminal, StopHook stopHook) {
        this(connector, sockets, out, err, terminal, stopHook, ProgressLine.DEFAULT_QUIET_MS);
    }

    RecordCommand(ConsumerConnector connector, SocketPaths sockets, PrintStream out, PrintStream err, boolean terminal,
                  StopHook stopHook, long quietMillis) {
        this.connector = connector;
        this.sockets = sockets;
        this.out = out;
        this.err = err;
        this.terminal = terminal;
        this.stopHook = stopHook;
        this.quietMillis = quietMillis;
    }

    public static String usage() {
        return String.join(System.lineSeparator(),
                "Record a trace through a tracing service (a JVM's agent, or the jtrace daemon):",
                "  jtrace record --pid <pid> --time 30s -o trace.pftrace      one JVM (loads the agent if needed)",
                "  jtrace record -c config.pbtxt -o trace.pftrace              Perfetto text TraceConfig, via the daemon",
                "  jtrace record --time 10s -o trace.pftrace                   every JVM connected to the daemon",
                "Options:",
                "  -o, --out <file>          the trace file (required unless the config has output_path)",
                "  -c, --config <file>       Perfetto text TraceConfig instead of the flags below",
                "  -t, --time <n>(ms|s|m|h)  how long; without it (and without duration_ms) until Ctrl-C",
                "  -b, --buffer <n>(k|m|g)   trace buffer size (default 32m)",
                "  -s, --sources a,b         data sources (default track_event,jvm.gc,jvm.threads,jvm.memory,jvm.jmx;",
                "                            also jvm.jfr)",
                "      --categories a,b      track_event categories to enable (globs; default all)",
                "  -p, --pid <pid>           record this JVM through its own consumer socket",
                "      --socket <path>       record through this consumer socket",
                "  -v, --verbose             stack traces with errors",
                "Ctrl-C stops the recording and saves the trace. Exit codes: 0 recorded, 1 the service refused",
                "  or failed (the reason is printed), 2 bad command line, 3 no service reachable",
                "");
    }

    /** {@code args} without the command name; returns the exit code. */
    public int run(String[] args) {
        RecordOptions options;
        try {
            options = RecordOptions.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("jtrace record: " + e.getMessage());
            return ExitCodes.USAGE;
        }
        if (options.help()) {
            out.print(usage());
            return ExitCodes.OK;
        }
        try {
            return record(options);
        } catch (RuntimeException e) {
            err.println("jtrace record: " + e);
            if (options.verbose()) {
                e.printStackTrace(err);
            }
            return ExitCodes.COMMAND_FAILED;
        }
    }

    private int record(RecordOptions options) {
        TracingConsumer consumer;
        try {
            Path socket = socket(options);
            consumer = connector.connect(socket);
        } catch (UnreachableException e) {
            err.println("jtrace record: " + e.getMessage());
            return ExitCodes.NOT_REACHABLE;
        } catch (IOException e) {
            err.println("jtrace record: cannot connect to " + describe(options) + ": " + e.getMessage());
            if (options.verbose()) {
                e.printStackTrace(err);
            }
            return ExitCodes.NOT_REACHABLE;
        }
        int result = record(options, consumer, true);
        if (result != REFUSED_FILE_WRITING) {
            return result;
        }
        // A service may not write files for a consumer of another user: read the trace out instead, on the
        // same connection (the refused session never existed).
        return record(options, consumer, false);
    }

    /**
     * A config naming a data source no connected producer has (a misspelling, a JVM not attached yet)
     * records nothing from it: like Perfetto's, the service takes it, since a producer may still connect,
     * so the command says so. Quiet when the service cannot tell.
     */
    private void warnAboutSourcesNoProducerHas(TraceConfig config, TracingConsumer consumer) {
        TracingServiceState state;
        try {
            state = consumer.serviceState().get(SERVICE_STATE_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        Set<String> registered = new TreeSet<>();
        for (TracingServiceState.DataSource ds : state.getDataSourcesList()) {
            registered.add(ds.getDsDescriptor().getName());
        }
        Set<String> missing = new LinkedHashSet<>();
        for (TraceConfig.DataSource ds : config.getDataSourcesList()) {
            if (!registered.contains(ds.getConfig().getName())) {
                missing.add("'" + ds.getConfig().getName() + "'");
            }
        }
        if (!missing.isEmpty()) {
            err.println("jtrace record: warning: no producer connected to the service has data source "
                    + String.join(", ", missing) + " (they have: "
                    + (registered.isEmpty() ? "none" : String.join(", ", registered))
                    + "); nothing is recorded from it unless one connects");
        }
    }

    private static final long SERVICE_STATE_WAIT_MS = 5_000;

    /** What {@link #record(RecordOptions, TracingConsumer, boolean)} returns when the service would not write the file. */
    private static final int REFUSED_FILE_WRITING = -1;

    private int record(RecordOptions options, TracingConsumer consumer, boolean serviceWrites) {
        try (WholeTraceFile file = serviceWrites ? WholeTraceFile.forAnotherWriter(options.out())
                : WholeTraceFile.beside(options.out())) {
            Recording recording = new Recording(consumer, options, file, serviceWrites,
                    new ProgressLine(err, terminal, quietMillis));
            if (serviceWrites) {
                // Once, on the first try: the output can be written; a fall-back to reading goes on quietly.
                warnAboutSourcesNoProducerHas(options.config(), consumer);
                err.println("jtrace record: recording " + describe(options) + " into " + options.out()
                        + (options.config().getDurationMs() != 0 ? " for " + Integer.toUnsignedLong(options.config().getDurationMs()) + " ms" : "")
                        + "; Ctrl-C stops and saves");
            }
            CountDownLatch reported = new CountDownLatch(1);
            stopHook.install(() -> {
                // Ctrl-C: the JVM exits once this returns, so wait (bounded) until the file is saved and reported.
                recording.requestStop();
                try {
                    reported.await(STOP_WAIT_MS, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            try {
                Recording.Outcome outcome = recording.run();
                if (serviceWrites && Recording.refusedFileWriting(outcome)) {
                    return REFUSED_FILE_WRITING;
                }
                if (outcome.fileWritten()) {
                    out.println(Recording.summary(outcome, options.out()));
                    out.flush();
                }
                if (outcome.error() != null) {
                    err.println("jtrace record: " + outcome.error()
                            + (outcome.fileWritten() ? " (the packets read before are in " + options.out() + ")" : ""));
                }
                return outcome.exitCode();
            } finally {
                reported.countDown();
                stopHook.remove();
            }
        } catch (IOException e) {
            consumer.close();
            err.println("jtrace record: cannot write " + options.out() + ": " + FileErrors.plainly(e));
            if (options.verbose()) {
                e.printStackTrace(err);
            }
            return ExitCodes.COMMAND_FAILED;
        }
    }

    private String describe(RecordOptions options) {
        if (options.pid() != null) {
            return "pid " + options.pid();
        }
        return options.socket() != null ? options.socket().toString() : "the jtrace daemon";
    }

    /**
     * The consumer socket to use. With {@code --pid}, a JVM that serves none gets the agent loaded
     * through the Attach API and a bounded wait for its socket to appear.
     */
    private Path socket(RecordOptions options) throws UnreachableException {
        if (options.socket() != null) {
            return options.socket();
        }
        if (options.pid() == null) {
            Path daemon = sockets.consumerSocket();
            if (!Files.exists(daemon)) {
                throw new UnreachableException("no jtrace daemon at " + daemon + ": start one with `java -jar "
                        + "jtrace.jar daemon`, or give --pid");
            }
            return daemon;
        }
        long pid = options.pid();
        Path socket = sockets.jvmConsumerSocket(pid);
        if (Files.exists(socket)) {
            return socket;
        }
        boolean loaded = TargetJvm.loadAgentUnlessLoaded(pid);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SOCKET_TIMEOUT_MS);
        while (!Files.exists(socket)) {
            if (System.nanoTime() > deadline) {
                throw new UnreachableException("jtrace " + (loaded ? "was loaded into" : "runs in") + " pid " + pid
                        + " but did not open its consumer socket " + socket + " within " + SOCKET_TIMEOUT_MS
                        + " ms (see that JVM's stderr)");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new UnreachableException("interrupted");
            }
        }
        return socket;
    }
}
