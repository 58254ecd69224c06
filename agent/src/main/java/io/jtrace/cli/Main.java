package io.jtrace.cli;

import io.jtrace.cli.attach.ControlCommand;
import io.jtrace.cli.attach.ListCommand;
import io.jtrace.cli.daemon.DaemonCommand;
import io.jtrace.cli.record.ConsumerConnector;
import io.jtrace.cli.record.RecordCommand;
import io.jtrace.cli.record.StopHook;
import io.jtrace.cli.summary.SummaryCommand;
import io.jtrace.consumer.IpcTracingConsumer;
import io.jtrace.ipc.SocketPaths;
import io.jtrace.jfr.cli.JfrCommands;
import java.io.PrintStream;
import java.util.Arrays;

/**
 * {@code java -jar jtrace.jar}: the command line. It only dispatches; each command lives in its own
 * class. Exits non-zero for anything it does not know.
 */
public final class Main {
    /** How long {@code record} waits for a service's consumer socket to answer. */
    private static final long CONNECT_TIMEOUT_MS = 10_000;
    /** How {@code record} reaches a service's consumer socket: Perfetto's consumer port over IPC. */
    static final ConsumerConnector CONSUMER_CONNECTOR = socket -> IpcTracingConsumer.connect(socket, CONNECT_TIMEOUT_MS);

    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        return run(args, out, err, CONSUMER_CONNECTOR);
    }

    static int run(String[] args, PrintStream out, PrintStream err, ConsumerConnector connector) {
        if (args.length == 0 || args[0].equals("help") || args[0].equals("--help") || args[0].equals("-h")) {
            out.print(usage());
            return 0;
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        String help = commandHelp(args[0]);
        if (help != null && (Arrays.asList(rest).contains("--help") || Arrays.asList(rest).contains("-h"))) {
            // Asked for help, a command does nothing else: no attach, no file.
            out.print(help);
            return 0;
        }
        switch (args[0]) {
            case "record" -> {
                return new RecordCommand(connector, SocketPaths.defaults(), out, err, System.console() != null,
                        StopHook.onShutdown()).run(rest);
            }
            case "summary" -> {
                return SummaryCommand.run(rest, out, err);
            }
            case "daemon" -> {
                return DaemonCommand.run(args, out, err);
            }
            case "start", "stop", "flush", "dump", "status" -> {
                return ControlCommand.run(args, out, err);
            }
            case "list" -> {
                return ListCommand.run(out, err);
            }
            case "convert" -> {
                return JfrCommands.convert(rest, out, err);
            }
            case "merge" -> {
                return JfrCommands.merge(rest, out, err);
            }
            default -> {
                // Not a command: reported below.
            }
        }
        err.println("jtrace: unknown command '" + args[0] + "'");
        err.print(usage());
        return 2;
    }

    /** A command's own help, or null for a command this does not know. */
    static String commandHelp(String command) {
        return switch (command) {
            case "record" -> RecordCommand.usage();
            case "summary" -> SummaryCommand.usage();
            case "daemon" -> DaemonCommand.usage();
            case "start", "stop", "flush", "dump", "status", "list" -> ControlCommand.usage();
            case "convert", "merge" -> JfrCommands.usage();
            default -> null;
        };
    }

    static String usage() {
        return String.join(System.lineSeparator(),
                "jtrace - Perfetto tracing for the JVM",
                "",
                "Trace a JVM from start-up:",
                "  java -javaagent:jtrace.jar=start,duration=30s,file=trace.pftrace -jar app.jar",
                "",
                "Trace a running JVM:",
                "  jcmd <pid> JVMTI.agent_load /path/to/jtrace.jar '\"start,duration=30s,file=trace.pftrace\"'",
                "",
                "Agent options (comma-separated): start, name=<session>, ring, duration=<n>(ms|s|m|h),",
                "  file=<path>, buffer=<n>(k|m|g), sources=track_event+jvm.gc, categories=<glob>+<glob>,",
                "  config=<text TraceConfig file>, log=off|error|warn|info|debug|trace,",
                "  threads_period=<n>(ms|s|m|h), memory_period=<n>(ms|s|m|h), jmx=<attribute>+<attribute>,",
                "  jmx_period=<n>(ms|s|m|h), jfr=<settings>, socket=<daemon socket> (see README)",
                "jcmd commands: start,<options> | stop[,name=<session>] | flush[,name=<session>] |",
                "  dump[,name=<session>],file=<path> | status",
                "",
                RecordCommand.usage(),
                SummaryCommand.usage(),
                DaemonCommand.usage(),
                ControlCommand.usage(),
                "Open the trace at https://ui.perfetto.dev",
                "",
                JfrCommands.usage(),
                "Every command takes --help.",
                "");
    }
}
