package io.jtrace.jfr.file;

import io.jtrace.jfr.format.DescribedTracks;
import io.jtrace.jfr.format.JfrEventMapper;
import io.jtrace.jfr.format.SequenceWriter;
import io.jtrace.jfr.format.TimeMapping;
import io.jtrace.protos.BuiltinClock;
import io.jtrace.protos.ClockSnapshot;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.protos.TracePacket;
import io.jtrace.service.output.TraceFileWriter;
import io.jtrace.service.output.WholeTraceFile;
import io.jtrace.shm.proto.ProtoWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * {@code convert} and {@code merge}: a .jfr recording streamed through {@link JfrEventMapper} into a
 * trace file, event by event (JDK's {@link RecordingFile} parses one chunk at a time, so memory is
 * bounded by the largest chunk plus the interning tables, which restart past {@link #MAX_INTERNED}).
 *
 * <p>Clocks: JFR event times are wall-clock (see {@link TimeMapping}). A converted trace keeps them as
 * REALTIME and says so in a clock snapshot whose primary trace clock is REALTIME. A merged trace puts
 * them on CLOCK_MONOTONIC, like jtrace's own events, with the REALTIME − MONOTONIC offset of the
 * trace's clock snapshots (see {@link TraceIndex}). JFR's wall clock is the chunk's start
 * (REALTIME, read with the chunk's start ticks) plus elapsed ticks (CLOCK_MONOTONIC on Linux unless JFR
 * uses the TSC), so the two timelines agree to tens of microseconds.
 *
 * <p>Damage: chunk headers are checked before parsing. A damaged file fails with a message naming the
 * file and the damage, and no output is left behind, unless {@code keepGoing}: then what parses is
 * converted and the report says what was lost. An exception in jtrace's mapping of an event the parser
 * read whole is no damage but a bug of jtrace: a {@link JfrInternalError} naming the event, or with
 * {@code keepGoing} the event skipped and counted in the report.
 */
public final class JfrToTrace {
    static final int MAX_INTERNED = 500_000;
    /**
     * The uuid base of a converted recording's process track: fixed, so converting a recording again
     * gives the same trace.
     */
    private static final long CONVERTED_PROCESS_BASE = 0x6A66722D62726467L;
    /**
     * The pid of a converted recording's process when the recording does not tell it: Linux's pid_max is
     * at most 2^22 (PID_MAX_LIMIT), so no process has this pid and nothing is mistaken for a real one.
     */
    static final int UNKNOWN_PID = 1 << 22;
    /** Files at least this big get a progress line. */
    public static final long PROGRESS_THRESHOLD_BYTES = 32L * 1024 * 1024;

    private final boolean keepGoing;
    private final PrintStream progress;
    private final int maxInterned;
    private final EventMapping mapping;

    /** {@code progress} null: no progress line. */
    public JfrToTrace(boolean keepGoing, PrintStream progress) {
        this(keepGoing, progress, MAX_INTERNED);
    }

    /** {@code maxInterned}: the bound of each sequence's interning tables, past which it starts over. */
    JfrToTrace(boolean keepGoing, PrintStream progress, int maxInterned) {
        this(keepGoing, progress, maxInterned, EventMapping.MAPPER);
    }

    JfrToTrace(boolean keepGoing, PrintStream progress, int maxInterned, EventMapping mapping) {
        this.keepGoing = keepGoing;
        this.progress = progress;
        this.maxInterned = maxInterned;
        this.mapping = mapping;
    }

    public ConversionReport convert(Path jfr, Path out) throws IOException, JfrInputException, JfrInternalError {
        if (Files.exists(out) && Files.isSameFile(out, jfr)) {
            throw new JfrInputException(out + ": the output would overwrite the recording");
        }
        ChunkScan scan = checkInput(jfr);
        JvmIdentity jvm = JvmIdentity.find(jfr);
        // Thread tracks need a pid. Unknown, it must not pass for a real process's (1 would be init's):
        // the process gets a pid no process can have and is named after the file.
        List<String> notes = new ArrayList<>();
        ProcessTrack process;
        if (jvm.known()) {
            process = new ProcessTrack(jvm.pid(), jvm.name(), CONVERTED_PROCESS_BASE);
            pidSourceNote(jfr, jvm, notes);
        } else {
            String name = String.valueOf(jfr.getFileName());
            process = new ProcessTrack(UNKNOWN_PID, name, CONVERTED_PROCESS_BASE);
            notes.add(jfr + ": the recording does not tell its JVM's pid (no jdk.JVMInformation event); its process"
                    + " track is named '" + name + "' with pid " + UNKNOWN_PID + ", which no Linux process can have");
        }
        return readable(jfr, scan, out, writer -> {
            writeRealtimeClock(writer, scan.startNanos());
            return new Target(2, TimeMapping.realtime(), new DescribedTracks(process, true, Map.of(), Set.of()), notes);
        });
    }

    public ConversionReport merge(Path trace, Path jfr, Path out) throws IOException, JfrInputException, JfrInternalError {
        if (Files.isSameFile(trace, jfr)) {
            throw new JfrInputException(trace + ": the trace and the recording are the same file");
        }
        if (Files.exists(out) && (Files.isSameFile(out, trace) || Files.isSameFile(out, jfr))) {
            throw new JfrInputException(out + ": the output would overwrite an input");
        }
        ChunkScan scan = checkInput(jfr);
        JvmIdentity jvm = JvmIdentity.find(jfr);
        return readable(jfr, scan, out, writer -> {
            TraceIndex index = TraceIndex.copy(trace, writer);
            int pid = pickProcess(trace, jfr, index, jvm);
            if (index.realtimeMinusMonotonic == null) {
                throw new JfrInputException(trace + ": no clock snapshot with REALTIME and MONOTONIC, so the"
                        + " recording's wall-clock times cannot be placed on its timeline");
            }
            ProcessTrack process = ProcessTrack.withUuid(pid, jvm.name(), index.processUuids.get(pid));
            List<String> notes = new ArrayList<>();
            if (!jvm.known()) {
                notes.add(jfr + ": the recording does not tell its JVM's pid (no jdk.JVMInformation event); its"
                        + " events went to the trace's only process, pid " + pid);
            } else {
                pidSourceNote(jfr, jvm, notes);
            }
            return new Target(index.maxSequenceId + 1, TimeMapping.monotonic(index.realtimeMinusMonotonic),
                    new DescribedTracks(process, false, index.threadUuids.getOrDefault(pid, Map.of()),
                            index.describedUuids), notes);
        });
    }

    private static int pickProcess(Path trace, Path jfr, TraceIndex index, JvmIdentity jvm) throws JfrInputException {
        if (index.processUuids.isEmpty()) {
            throw new JfrInputException(trace + ": no process track, so it is not a jtrace trace of a JVM");
        }
        if (jvm.known()) {
            if (!index.processUuids.containsKey(jvm.pid())) {
                throw new JfrInputException(jfr + ": recorded in pid " + jvm.pid() + ", but " + trace
                        + " traces pid(s) " + index.processUuids.keySet() + ": not the same JVM");
            }
            return jvm.pid();
        }
        if (index.processUuids.size() != 1) {
            throw new JfrInputException(jfr + ": has no jdk.JVMInformation event to tell its pid, and " + trace
                    + " traces several processes " + index.processUuids.keySet());
        }
        return index.processUuids.keySet().iterator().next();
    }

    private ChunkScan checkInput(Path jfr) throws IOException, JfrInputException {
        if (!Files.isRegularFile(jfr)) {
            throw new JfrInputException(jfr + ": no such file");
        }
        ChunkScan scan = ChunkScanner.scan(jfr);
        if (scan.damage() != null && !keepGoing) {
            throw new JfrInputException(jfr + ": " + scan.damage() + "; --keep-going converts the "
                    + scan.chunks().size() + " whole chunk(s) before it (" + scan.readableBytes() + " of "
                    + scan.fileSize() + " bytes) that parse");
        }
        return scan;
    }

    /** Says where a known pid came from when it was not the recording's jdk.JVMInformation. */
    private static void pidSourceNote(Path jfr, JvmIdentity jvm, List<String> notes) {
        if (!jvm.source().equals("jdk.JVMInformation")) {
            notes.add(jfr + ": has no jdk.JVMInformation event; pid " + jvm.pid() + " is from " + jvm.source());
        }
    }

    /**
     * Where a recording's events go: sequence ids from {@code firstSequenceId}, their clock, their tracks;
     * {@code notes} for the report.
     */
    private record Target(int firstSequenceId, TimeMapping time, DescribedTracks tracks, List<String> notes) {}

    @FunctionalInterface
    private interface TargetSetup {
        Target open(TraceFileWriter writer) throws IOException, JfrInputException;
    }

    /** The recording stopped parsing half-way; {@code what} says after how many events and why. */
    private static final class ParseFailure extends Exception {
        ParseFailure(String what, Throwable cause) {
            super(what, cause);
        }
    }

    /**
     * Converts the file as it is when its chunk headers are sound and it parses to the end; otherwise,
     * with {@code keepGoing}, converts its {@link Salvage salvaged} chunks and reports what was lost.
     */
    private ConversionReport readable(Path jfr, ChunkScan scan, Path out, TargetSetup setup)
            throws IOException, JfrInputException, JfrInternalError {
        if (scan.damage() == null) {
            try {
                return writeTo(out, jfr, jfr, scan, null, setup);
            } catch (ParseFailure f) {
                if (!keepGoing) {
                    throw new JfrInputException(jfr + ": " + f.getMessage()
                            + " (--keep-going converts the chunks that parse)", f.getCause());
                }
            }
        }
        try (Salvage salvage = Salvage.of(jfr, scan)) {
            if (salvage.scan.chunks().isEmpty()) {
                // Nothing to convert is a failure, not a conversion with loss.
                throw new JfrInputException(jfr + ": no chunk is readable: " + salvage.loss);
            }
            return writeTo(out, jfr, salvage.file, salvage.scan, salvage.loss, setup);
        } catch (ParseFailure f) {
            throw new JfrInputException(jfr + ": the chunks that parsed alone failed together: " + f.getMessage(), f.getCause());
        }
    }

    private ConversionReport writeTo(Path out, Path named, Path jfr, ChunkScan scan, String loss, TargetSetup setup)
            throws IOException, JfrInputException, ParseFailure, JfrInternalError {
        // Whole or not at all: a failed conversion leaves no partial file, and an output that names an
        // input (convert x.jfr -o x.jfr) replaces it only once the conversion is complete.
        try (WholeTraceFile whole = WholeTraceFile.beside(out)) {
            TraceFileWriter writer = whole.writer();
            Target target = setup.open(writer);
            ConversionReport report = convertEvents(named, jfr, scan, writer, target);
            whole.commit();
            return new ConversionReport(report.eventsPerType(), report.eventsWritten(), report.eventsSkipped(),
                    report.chunksRead(), report.bytesRead(), Files.size(named), loss, writer.packets(), writer.bytes(),
                    report.failedPerType(), report.firstFailure(), target.notes());
        }
    }

    private ConversionReport convertEvents(Path named, Path jfr, ChunkScan scan, TraceFileWriter writer, Target target)
            throws IOException, ParseFailure, JfrInternalError {
        int[] nextSequence = {target.firstSequenceId()};
        ByteBuffer packetBuffer = FilePacketOut.newPacketBuffer();
        FilePacketOut eventsOut = new FilePacketOut(writer, nextSequence[0]++, packetBuffer);
        int clock = target.time().clockId();
        SequenceWriter events = new SequenceWriter(eventsOut, clock, maxInterned);
        List<FilePacketOut> outs = new ArrayList<>();
        outs.add(eventsOut);
        JfrEventMapper mapper = new JfrEventMapper(target.tracks(), target.time(), events, type -> {
            FilePacketOut sampleOut = new FilePacketOut(writer, nextSequence[0]++, packetBuffer);
            outs.add(sampleOut);
            return new SequenceWriter(sampleOut, clock, maxInterned);
        });
        Progress bar = new Progress(scan.fileSize() >= PROGRESS_THRESHOLD_BYTES ? progress : null,
                "jtrace: " + named.getFileName(), scan.startNanos(), scan.endNanos());
        MappingFailures failures = new MappingFailures(named);
        long read = 0;
        long skipped = 0;
        // What throws decides whose fault it is: the parser (hasMoreEvents, readEvent: the recording is
        // damaged), the output (an UncheckedIOException from the trace writer), or jtrace's mapping of an
        // event the parser read whole (a bug of jtrace, never reported as damage).
        try (RecordingFile file = new RecordingFile(jfr)) {
            while (true) {
                RecordedEvent event;
                try {
                    if (!file.hasMoreEvents()) {
                        break;
                    }
                    event = file.readEvent();
                } catch (IOException | RuntimeException e) {
                    throw new ParseFailure("parsing stopped after " + read + " events: " + describe(e), e);
                }
                read++;
                try {
                    mapping.write(mapper, event);
                } catch (PacketTooLargeException e) {
                    restart(outs, mapper);
                    skipped++;
                } catch (UncheckedIOException e) {
                    throw e; // the output failed: below
                } catch (RuntimeException e) {
                    restart(outs, mapper);
                    String what = failures.add(read, event, e);
                    if (!keepGoing) {
                        throw new JfrInternalError("internal error of jtrace, not damage in the recording: mapping "
                                + what + " (the stack trace is logged; --keep-going skips such events and counts them)", e);
                    }
                }
                bar.event(TimeMapping.epochNanos(event.getStartTime()), read);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause(); // the output failed, not the input
        } catch (IOException e) {
            // Opening the recording or closing it: the parser's, so the input's.
            throw new ParseFailure("parsing stopped after " + read + " events: " + describe(e), e);
        }
        bar.done(read);
        return new ConversionReport(mapper.writtenPerType(), mapper.writtenTotal(), skipped, scan.chunks().size(),
                scan.readableBytes(), scan.fileSize(), null, 0, 0, failures.perType(), failures.first(), List.of());
    }

    /**
     * After an event could not be written: its half-written packet is dropped, and what it interned is
     * unknown to the trace, so every sequence starts over.
     */
    private static void restart(List<FilePacketOut> outs, JfrEventMapper mapper) {
        outs.forEach(FilePacketOut::abandon);
        mapper.clearIncrementalState();
    }

    static String describe(Exception e) {
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null ? "" : " " + message);
    }

    /** The converted trace's clock: REALTIME, declared the trace's primary clock. */
    private static void writeRealtimeClock(TraceFileWriter writer, long realtimeNanos) {
        FilePacketOut out = new FilePacketOut(writer, 1, ByteBuffer.allocate(256).order(ByteOrder.LITTLE_ENDIAN));
        ProtoWriter p = out.beginPacket();
        p.beginNested(TracePacket.CLOCK_SNAPSHOT_FIELD_NUMBER);
        p.beginNested(ClockSnapshot.CLOCKS_FIELD_NUMBER);
        p.varint(ClockSnapshot.Clock.CLOCK_ID_FIELD_NUMBER, BuiltinClock.BUILTIN_CLOCK_REALTIME_VALUE);
        p.varint(ClockSnapshot.Clock.TIMESTAMP_FIELD_NUMBER, realtimeNanos);
        p.endNested();
        p.varint(ClockSnapshot.PRIMARY_TRACE_CLOCK_FIELD_NUMBER, BuiltinClock.BUILTIN_CLOCK_REALTIME_VALUE);
        p.endNested();
        out.endPacket();
    }
}
