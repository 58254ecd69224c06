package io.jtrace.jfr.cli;

import io.jtrace.service.output.FileErrors;
import io.jtrace.jfr.file.ConversionReport;
import io.jtrace.jfr.file.JfrInputException;
import io.jtrace.jfr.file.JfrInternalError;
import io.jtrace.jfr.file.JfrToTrace;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code jtrace convert} and {@code jtrace merge}: argument parsing and the summary they print. Exit
 * codes: 0 converted whole; 1 failed (nothing written); 2 bad arguments; 3 converted with
 * {@code --keep-going}, but something was lost (said on stderr); 4 an internal error of jtrace (a bug
 * in mapping an event the parser read whole; nothing written; {@code --keep-going} skips such events).
 */
public final class JfrCommands {
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;
    public static final int LOSSY = 3;
    public static final int INTERNAL_ERROR = 4;

    private JfrCommands() {}

    public static String usage() {
        return String.join(System.lineSeparator(),
                "Convert a JFR recording to a Perfetto trace:",
                "  java -jar jtrace.jar convert rec.jfr -o out.pftrace [--keep-going]",
                "Add a JFR recording of the same JVM to a jtrace trace:",
                "  java -jar jtrace.jar merge trace.pftrace rec.jfr -o merged.pftrace [--keep-going]",
                "--keep-going converts what is readable of a truncated or corrupt recording and reports the loss;",
                "  it also skips (and counts) events that jtrace's own mapping fails on, an internal error.",
                "");
    }

    /** {@code args} without the command name. */
    public static int convert(String[] args, PrintStream out, PrintStream err) {
        Parsed parsed = Parsed.of("convert", args, 1, err);
        if (parsed == null) {
            return USAGE;
        }
        Path jfr = Path.of(parsed.inputs.get(0));
        return run(err, out, parsed, jfr, List.of(jfr),
                () -> new JfrToTrace(parsed.keepGoing, err).convert(jfr, parsed.output));
    }

    public static int merge(String[] args, PrintStream out, PrintStream err) {
        Parsed parsed = Parsed.of("merge", args, 2, err);
        if (parsed == null) {
            return USAGE;
        }
        Path trace = Path.of(parsed.inputs.get(0));
        Path jfr = Path.of(parsed.inputs.get(1));
        return run(err, out, parsed, jfr, List.of(trace, jfr),
                () -> new JfrToTrace(parsed.keepGoing, err).merge(trace, jfr, parsed.output));
    }

    @FunctionalInterface
    private interface Job {
        ConversionReport run() throws IOException, JfrInputException, JfrInternalError;
    }

    /** {@code inputs}: the files the job reads, so a missing one is reported as such (not as an output that cannot be made). */
    private static int run(PrintStream err, PrintStream out, Parsed parsed, Path jfr, List<Path> inputs, Job job) {
        ConversionReport report;
        try {
            report = job.run();
        } catch (JfrInputException e) {
            err.println("jtrace: " + e.getMessage());
            return FAILED;
        } catch (JfrInternalError e) {
            err.println("jtrace: " + e.getMessage());
            return INTERNAL_ERROR;
        } catch (IOException e) {
            err.println("jtrace: " + FileErrors.plainly(e, inputs));
            return FAILED;
        }
        for (String note : report.notes()) {
            err.println("jtrace: " + note);
        }
        out.printf("%s: %,d events of %d types from %s (%,d packets, %,d bytes)%n", parsed.output,
                report.eventsWritten(), report.eventsPerType().size(), jfr, report.packetsWritten(),
                report.traceBytes());
        for (Map.Entry<String, Long> e : report.eventsPerType().entrySet()) {
            out.printf("  %-45s %,d%n", e.getKey(), e.getValue());
        }
        if (!report.lostSomething()) {
            return OK;
        }
        if (report.loss() != null) {
            err.printf("jtrace: %s: converted the readable part (%,d of %,d bytes in whole chunks); lost: %s%n",
                    jfr, report.bytesRead(), report.inputBytes(), report.loss());
        }
        if (report.eventsSkipped() > 0) {
            err.printf("jtrace: %s: %,d events too large for a packet were skipped%n", jfr, report.eventsSkipped());
        }
        if (report.eventsFailed() > 0) {
            err.printf("jtrace: internal error of jtrace, not damage in %s: %,d events could not be mapped and were"
                    + " skipped %s; the first: %s (stack traces logged)%n", jfr, report.eventsFailed(),
                    report.failedPerType(), report.firstFailure());
        }
        return LOSSY;
    }

    private record Parsed(List<String> inputs, Path output, boolean keepGoing) {
        static Parsed of(String command, String[] args, int inputCount, PrintStream err) {
            List<String> inputs = new ArrayList<>();
            Path output = null;
            boolean keepGoing = false;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (a.equals("-o") || a.equals("--output")) {
                    if (i + 1 == args.length) {
                        err.println("jtrace " + command + ": " + a + " needs a file name");
                        return null;
                    }
                    output = Path.of(args[++i]);
                } else if (a.equals("--keep-going")) {
                    keepGoing = true;
                } else if (a.startsWith("-")) {
                    err.println("jtrace " + command + ": unknown option " + a);
                    err.print(usage());
                    return null;
                } else {
                    inputs.add(a);
                }
            }
            if (inputs.size() != inputCount || output == null) {
                err.println("jtrace " + command + ": expected " + (inputCount == 1 ? "a recording" : "a trace and a recording")
                        + " and -o <output>");
                err.print(usage());
                return null;
            }
            return new Parsed(inputs, output, keepGoing);
        }
    }
}
