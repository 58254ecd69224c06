package io.jtrace.cli.daemon;

import static io.jtrace.cli.attach.CommandLineValues.value;

import io.jtrace.cli.attach.ExitCodes;
import io.jtrace.daemon.TracingDaemon;
import io.jtrace.ipc.SocketPaths;
import io.jtrace.service.ServiceConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * {@code java -jar jtrace.jar daemon}: runs the tracing service for many JVMs until SIGTERM or Ctrl-C,
 * then shuts down cleanly (sessions end, producers are told, both socket files go).
 */
public final class DaemonCommand {
    private DaemonCommand() {}

    public static String usage() {
        return String.join(System.lineSeparator(),
                "Run the tracing service for many JVMs (JVMs with the agent join it as producers):",
                "  jtrace daemon [--socket-dir <dir>] [--producer-socket <path>] [--consumer-socket <path>]",
                "                [--max-sessions <n>] [--max-sessions-per-uid <n>]",
                "  Defaults: sockets producer.sock and consumer.sock in $" + SocketPaths.DIRECTORY_VARIABLE
                        + " or <tmp>/jtrace-<user> (mode 0700),",
                "  16 sessions, 5 per uid. Stops on SIGTERM or Ctrl-C.",
                "");
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        SocketPaths paths = SocketPaths.defaults();
        Path producerSocket = null;
        Path consumerSocket = null;
        ServiceConfig defaults = ServiceConfig.defaults();
        int maxSessions = defaults.maxSessions();
        int maxPerUid = defaults.maxSessionsPerUid();
        try {
            for (int i = 1; i < args.length; i++) {
                switch (args[i]) {
                    case "--help", "-h" -> {
                        out.print(usage());
                        return ExitCodes.OK;
                    }
                    case "--socket-dir" -> paths = new SocketPaths(Path.of(value(args, ++i, "--socket-dir")));
                    case "--producer-socket" -> producerSocket = Path.of(value(args, ++i, "--producer-socket"));
                    case "--consumer-socket" -> consumerSocket = Path.of(value(args, ++i, "--consumer-socket"));
                    case "--max-sessions" -> maxSessions = positive(value(args, ++i, "--max-sessions"), "--max-sessions");
                    case "--max-sessions-per-uid" -> maxPerUid = positive(value(args, ++i, "--max-sessions-per-uid"),
                            "--max-sessions-per-uid");
                    default -> throw new IllegalArgumentException("unknown option '" + args[i] + "'");
                }
            }
        } catch (IllegalArgumentException e) {
            err.println("jtrace daemon: " + e.getMessage());
            err.print(usage());
            return ExitCodes.USAGE;
        }
        ServiceConfig config = new ServiceConfig(defaults.smbSize(), defaults.smbPageSize(), defaults.smbDirectory(),
                maxSessions, defaults.maxTotalBufferBytes(), defaults.defaultFlushTimeoutMillis(), maxPerUid);
        TracingDaemon daemon;
        try {
            if (producerSocket == null || consumerSocket == null) {
                paths.ensurePrivateDirectory();
            }
            daemon = TracingDaemon.start(config, producerSocket != null ? producerSocket : paths.producerSocket(),
                    consumerSocket != null ? consumerSocket : paths.consumerSocket());
        } catch (IOException e) {
            err.println("jtrace daemon: " + e.getMessage());
            return ExitCodes.COMMAND_FAILED;
        }
        out.println("jtrace daemon: producers on " + (producerSocket != null ? producerSocket : paths.producerSocket())
                + ", consumers on " + (consumerSocket != null ? consumerSocket : paths.consumerSocket()));
        out.flush();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            daemon.close();
            stopped.countDown();
        }, "jtrace-daemon-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return ExitCodes.OK;
    }

    private static int positive(String value, String option) {
        try {
            int n = Integer.parseInt(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + " needs a positive number, got '" + value + "'");
    }
}
