package io.jtrace.cli.summary;

import com.google.protobuf.InvalidProtocolBufferException;
import io.jtrace.cli.attach.ExitCodes;
import io.jtrace.protos.TracePacket;
import io.jtrace.service.output.TraceFileReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * {@code jtrace summary <trace>}: what a trace file holds — packets, sequences, processes and threads,
 * data sources, losses and time span — read one packet at a time, so a trace of any size is summarized
 * in little memory. A damaged trace (its last packet cut off, its framing broken further in) is
 * summarized up to the damage, which is reported; a file that is no trace is an error (exit 1).
 */
public final class SummaryCommand {
    private SummaryCommand() {}

    public static String usage() {
        return String.join(System.lineSeparator(),
                "Summarize a trace file (packets, sequences, processes, threads, data sources, losses, time span):",
                "  jtrace summary trace.pftrace [--json]",
                "Exit codes: 0 summarized (damage, such as a cut-off last packet, is reported), 1 not a trace or",
                "  unreadable, 2 bad command line",
                "");
    }

    /** {@code args} without the command name; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        Path file = null;
        boolean json = false;
        for (String a : args) {
            switch (a) {
                case "--help", "-h" -> {
                    out.print(usage());
                    return ExitCodes.OK;
                }
                case "--json" -> json = true;
                default -> {
                    if (a.startsWith("-")) {
                        err.println("jtrace summary: unknown option '" + a + "'");
                        return ExitCodes.USAGE;
                    }
                    if (file != null) {
                        err.println("jtrace summary: one trace at a time, got '" + file + "' and '" + a + "'");
                        return ExitCodes.USAGE;
                    }
                    file = Path.of(a);
                }
            }
        }
        if (file == null) {
            err.println("jtrace summary: which trace? jtrace summary <trace.pftrace>");
            return ExitCodes.USAGE;
        }
        Result result;
        try {
            result = summarize(file);
        } catch (NoSuchFileException e) {
            err.println("jtrace summary: " + file + ": no such file");
            return ExitCodes.COMMAND_FAILED;
        } catch (TraceFileReader.NotATraceException e) {
            err.println("jtrace summary: " + e.getMessage());
            return ExitCodes.COMMAND_FAILED;
        } catch (IOException e) {
            err.println("jtrace summary: cannot read " + file + ": " + e);
            return ExitCodes.COMMAND_FAILED;
        }
        out.print(json ? SummaryReport.json(result) : SummaryReport.text(result));
        return ExitCodes.OK;
    }

    /** The summary, and what was wrong with the file if it is damaged (null if whole). */
    record Result(Path file, long bytes, TraceSummary summary, String damage) {}

    static Result summarize(Path file) throws IOException {
        if (Files.isDirectory(file)) {
            throw new TraceFileReader.NotATraceException(file + " is a directory, not a trace");
        }
        TraceSummary summary = new TraceSummary();
        try (TraceFileReader reader = TraceFileReader.open(file)) {
            if (reader.fileSize() == 0) {
                throw new TraceFileReader.NotATraceException(file + " is empty: not a trace");
            }
            String damage = null;
            while (reader.next()) {
                TracePacket packet;
                try {
                    packet = TracePacket.parseFrom(ByteBuffer.wrap(reader.packet(), 0, reader.packetLength()));
                } catch (InvalidProtocolBufferException e) {
                    if (reader.packets() == 1) {
                        throw new TraceFileReader.NotATraceException(file + " is not a Perfetto trace: its first "
                                + "packet does not decode (" + e.getMessage() + ")");
                    }
                    summary.unparsablePackets++;
                    if (damage == null) {
                        damage = "at byte " + reader.packetOffset() + ": packet " + (reader.packets() - 1)
                                + " does not decode (" + e.getMessage() + "); skipped, the packets after it summarized";
                    }
                    continue;
                }
                summary.packet(packet);
            }
            if (reader.damage() != null && summary.packets == 0) {
                throw new TraceFileReader.NotATraceException(file + " holds no whole packet: " + reader.damage());
            }
            if (reader.damage() != null) {
                // The framing itself broke: nothing after it can be read.
                String cut = reader.damage() + "; summarized up to there";
                damage = damage == null ? cut : damage + "; " + cut;
            }
            return new Result(file, reader.fileSize(), summary, damage);
        }
    }
}
