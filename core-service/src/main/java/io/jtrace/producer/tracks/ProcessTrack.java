package io.jtrace.producer.tracks;

import io.jtrace.protos.CounterDescriptor;
import io.jtrace.protos.ProcessDescriptor;
import io.jtrace.protos.ThreadDescriptor;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.writer.TraceWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * This process's track and the uuids of the tracks under it (threads, counters, GC). Uuids are derived
 * from a per-process random base, so two JVMs merged into one trace never collide, and the same
 * thread or counter name always maps to the same track within the process. Every producer of a process
 * derives its uuids here (the agent's data sources, the JFR bridge live and from files), so the
 * events they write about one thread land on one track.
 */
public final class ProcessTrack {
    private final int pid;
    private final String name;
    private final List<String> commandLine;
    private final List<String> labels;
    private final long uuid;

    public ProcessTrack(int pid, String name, long randomBase) {
        this(pid, name, List.of(), List.of(), randomBase);
    }

    /**
     * {@code commandLine} goes into the process descriptor's cmdline, {@code labels} into its
     * process_labels (the Perfetto UI shows both with the process).
     */
    public ProcessTrack(int pid, String name, List<String> commandLine, List<String> labels, long randomBase) {
        this(mix(randomBase ^ pid) | 1, pid, name, commandLine, labels);
    }

    private ProcessTrack(long uuid, int pid, String name, List<String> commandLine, List<String> labels) {
        this.pid = pid;
        this.name = name;
        this.commandLine = List.copyOf(commandLine);
        this.labels = List.copyOf(labels);
        this.uuid = uuid;
    }

    /** A process whose track already exists with {@code uuid} (a trace being merged into). */
    public static ProcessTrack withUuid(int pid, String name, long uuid) {
        return new ProcessTrack(uuid, pid, name, List.of(), List.of());
    }

    /**
     * The current JVM: its pid, a name from the main class or jar ({@code sun.java.command}), its command
     * line (as the OS reports it, else the launcher's arguments as the JVM knows them) and the JVM's
     * name, version and vendor as a label.
     */
    public static ProcessTrack forCurrentJvm() {
        int pid = (int) ProcessHandle.current().pid();
        String command = System.getProperty("sun.java.command", "");
        String main = command.isBlank() ? ManagementFactory.getRuntimeMXBean().getName() : mainOf(command);
        List<String> commandLine = new ArrayList<>();
        ProcessHandle.Info info = ProcessHandle.current().info();
        if (info.command().isPresent() && info.arguments().isPresent()) {
            commandLine.add(info.command().get());
            commandLine.addAll(Arrays.asList(info.arguments().get()));
        } else {
            commandLine.add(System.getProperty("java.home") + "/bin/java");
            commandLine.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
            commandLine.addAll(Arrays.asList(command.split(" ")));
        }
        String jvm = "jvm: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version")
                + " (" + System.getProperty("java.vm.vendor") + ")";
        return new ProcessTrack(pid, main, commandLine, List.of(jvm),
                System.nanoTime() ^ Double.doubleToLongBits(Math.random()));
    }

    /**
     * What a {@code sun.java.command} runs: its main class or jar; for {@code java App.java}, the source
     * file, since the source launcher's own main class ({@code jdk.compiler/com.sun.tools.javac.launcher.Main},
     * {@code SourceLauncher} since JDK 22) says nothing about the application.
     */
    static String mainOf(String command) {
        String[] parts = command.trim().split(" +", 3);
        if (parts[0].startsWith("jdk.compiler/com.sun.tools.javac.launcher.") && parts.length > 1) {
            return parts[1];
        }
        return parts[0];
    }

    public int pid() {
        return pid;
    }

    public String name() {
        return name;
    }

    public long uuid() {
        return uuid;
    }

    public long threadUuid(long tid) {
        return mix(uuid ^ (tid * 0x9E3779B97F4A7C15L));
    }

    /**
     * The uuid of a virtual thread's track, from its Java thread id (virtual threads have no OS thread:
     * they run on whichever carrier is free). Never equal to a {@link #threadUuid}: a different salt.
     */
    public long virtualThreadUuid(long javaThreadId) {
        return mix(uuid ^ (javaThreadId * 0xC2B2AE3D27D4EB4FL) ^ 0x5DEECE66DL);
    }

    /** The name of a virtual thread's track: its name, or "virtual thread", and its Java thread id. */
    public static String virtualThreadTrackName(String threadName, long javaThreadId) {
        return (threadName.isEmpty() ? "virtual thread" : threadName) + " #" + javaThreadId;
    }

    /** The uuid of a track named {@code key} under this process (counters, GC tracks). */
    public long namedUuid(String key) {
        long h = 1125899906842597L;
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        for (byte b : bytes) {
            h = 31 * h + b;
        }
        return mix(uuid ^ mix(h));
    }

    /** Longest argument written into cmdline: a class path can run to megabytes, and every sequence may repeat it. */
    static final int MAX_ARGUMENT_CHARS = 512;

    /** The process's descriptor: pid and name. */
    public void writeProcessDescriptor(TraceWriter writer) {
        writeProcessDescriptor(writer, false);
    }

    /**
     * The process's descriptor; {@code full} adds the command line and the labels. Each data source's
     * first header writes the full one, its later headers (every few seconds) the short one:
     * trace_processor keeps what an earlier descriptor of the same pid set.
     */
    public void writeProcessDescriptor(TraceWriter writer, boolean full) {
        writeProcessDescriptor(writer.beginPacket(), full);
        writer.endPacket();
    }

    /** Writes the process's descriptor into an already open packet; {@code full} as above. */
    public void writeProcessDescriptor(ProtoWriter p, boolean full) {
        p.beginNested(TracePacket.TRACK_DESCRIPTOR_FIELD_NUMBER);
        p.varint(TrackDescriptor.UUID_FIELD_NUMBER, uuid);
        p.beginNested(TrackDescriptor.PROCESS_FIELD_NUMBER);
        p.varint(ProcessDescriptor.PID_FIELD_NUMBER, pid);
        if (full) {
            for (String arg : commandLine) {
                p.string(ProcessDescriptor.CMDLINE_FIELD_NUMBER, arg.length() <= MAX_ARGUMENT_CHARS ? arg
                        : arg.substring(0, MAX_ARGUMENT_CHARS) + "...(" + (arg.length() - MAX_ARGUMENT_CHARS) + " more chars)");
            }
        }
        p.string(ProcessDescriptor.PROCESS_NAME_FIELD_NUMBER, name);
        if (full) {
            for (String label : labels) {
                p.string(ProcessDescriptor.PROCESS_LABELS_FIELD_NUMBER, label);
            }
        }
        p.endNested();
        p.endNested();
    }

    /** Writes the descriptor of a thread's track into an already open packet. */
    public void writeThreadDescriptor(ProtoWriter p, long tid, String threadName) {
        writeThreadDescriptor(p, threadUuid(tid), tid, threadName);
    }

    /**
     * Writes the descriptor of a thread's track with uuid {@code trackUuid} into an already open packet:
     * pid, tid and name, by which trace_processor joins it with every other source of the same thread.
     */
    public void writeThreadDescriptor(ProtoWriter p, long trackUuid, long tid, String threadName) {
        p.beginNested(TracePacket.TRACK_DESCRIPTOR_FIELD_NUMBER);
        p.varint(TrackDescriptor.UUID_FIELD_NUMBER, trackUuid);
        p.beginNested(TrackDescriptor.THREAD_FIELD_NUMBER);
        p.varint(ThreadDescriptor.PID_FIELD_NUMBER, pid);
        p.varint(ThreadDescriptor.TID_FIELD_NUMBER, tid);
        p.string(ThreadDescriptor.THREAD_NAME_FIELD_NUMBER, threadName);
        p.endNested();
        p.endNested();
    }

    /** Writes a packet describing a named track under the process; a counter track when {@code counter}. */
    public void writeNamedTrack(TraceWriter writer, long trackUuid, String trackName, boolean counter) {
        writeNamedTrack(writer.beginPacket(), trackUuid, trackName, counter);
        writer.endPacket();
    }

    /** Writes the descriptor of a named track under the process into an already open packet. */
    public void writeNamedTrack(ProtoWriter p, long trackUuid, String trackName, boolean counter) {
        writeTrack(p, trackUuid, uuid, trackName, counter ? CounterDescriptor.Unit.UNIT_UNSPECIFIED : null);
    }

    /**
     * Writes, into an open packet, the descriptor of a track named {@code trackName} under
     * {@code parentUuid} (the process, or a thread's track): a counter track in {@code counterUnit}, or a
     * slice track when that is null.
     */
    public static void writeTrack(ProtoWriter p, long trackUuid, long parentUuid, String trackName,
                                  CounterDescriptor.Unit counterUnit) {
        p.beginNested(TracePacket.TRACK_DESCRIPTOR_FIELD_NUMBER);
        p.varint(TrackDescriptor.UUID_FIELD_NUMBER, trackUuid);
        p.varint(TrackDescriptor.PARENT_UUID_FIELD_NUMBER, parentUuid);
        p.string(TrackDescriptor.NAME_FIELD_NUMBER, trackName);
        if (counterUnit != null) {
            p.beginNested(TrackDescriptor.COUNTER_FIELD_NUMBER);
            if (counterUnit != CounterDescriptor.Unit.UNIT_UNSPECIFIED) {
                p.varint(CounterDescriptor.UNIT_FIELD_NUMBER, counterUnit.getNumber());
            }
            p.endNested();
        }
        p.endNested();
    }

    /** SplitMix64 finalizer: spreads bits so derived uuids do not cluster. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
