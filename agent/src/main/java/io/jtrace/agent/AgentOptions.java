package io.jtrace.agent;

import io.jtrace.agent.backend.DaemonSocket;
import io.jtrace.agent.config.TextTraceConfig;
import io.jtrace.agent.gc.GcDataSource;
import io.jtrace.agent.jmx.JmxDataSource;
import io.jtrace.agent.jmx.MBeanAttributeSpec;
import io.jtrace.agent.memory.MemoryDataSource;
import io.jtrace.agent.threads.ThreadsDataSource;
import io.jtrace.agent.trackevent.TrackEventDataSource;
import io.jtrace.jfr.live.JfrDataSource;
import io.jtrace.jfr.live.JfrSettings;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The agent's option string, {@code -javaagent:jtrace.jar=start,duration=30s,file=/tmp/x.pftrace}:
 * comma-separated {@code key} or {@code key=value}, like {@code -XX:StartFlightRecording}.
 *
 * <ul>
 *   <li>{@code start}: start a session now (otherwise the agent only registers its data sources)</li>
 *   <li>{@code duration=30s}: stop after this long (ms, s, m, h); default: at JVM exit</li>
 *   <li>{@code file=path}: where the trace goes; default {@code jtrace-<pid>-<time>-<name>.pftrace}</li>
 *   <li>{@code buffer=64m}: trace buffer size (k, m); default 32m with {@code ring}, 8m streamed</li>
 *   <li>{@code sources=track_event+jvm.gc}: data sources, '+'-separated; default all of
 *       track_event, jvm.gc, jvm.threads, jvm.memory, jvm.jmx</li>
 *   <li>{@code categories=app+db*}: track_event categories to enable (globs); default all</li>
 *   <li>{@code threads_period=100ms}: jvm.threads' sample period (at least 10ms)</li>
 *   <li>{@code memory_period=1s}: jvm.memory's sample period (at least 10ms)</li>
 *   <li>{@code jmx=java.lang:type=OperatingSystem/ProcessCpuLoad+...}: jvm.jmx's attributes, '+'-separated
 *       {@code object-name/attribute[/key]}; a ',' inside an object name is written ';' here (the option
 *       string is comma-separated)</li>
 *   <li>{@code jmx_period=1s}: jvm.jmx's poll period (at least 10ms)</li>
 *   <li>{@code log=warn}: agent log level (off, error, warn, info, debug, trace); default warn</li>
 *   <li>{@code name=x}: the session's name (what stop, flush and dump take); default {@code session-<n>}</li>
 *   <li>{@code ring}: keep the trace in memory (the last {@code buffer} bytes) and write the file at the
 *       end and on each dump, instead of streaming it into the file</li>
 *   <li>{@code config=path}: a Perfetto text TraceConfig instead of duration, buffer, sources,
 *       categories and ring</li>
 *   <li>{@code jfr=default}: JFR events for the {@code jvm.jfr} source (and adds that source): a
 *       predefined configuration ({@code default}, {@code profile}) or {@code event#setting=value+...}</li>
 *   <li>{@code socket=path}: the producer socket of a {@code jtrace daemon} to join (default: the daemon's
 *       default socket, joined whenever a daemon listens there); {@code socket=off}: never join one</li>
 * </ul>
 */
public record AgentOptions(boolean start, long durationMillis, Path file, long bufferBytes, List<String> sources,
                           List<String> categories, String logLevel, String name, boolean ring, Path config,
                           long threadsPeriodMillis, long memoryPeriodMillis, List<String> jmxAttributes,
                           long jmxPeriodMillis, String jfr, DaemonSocket socket, boolean bufferGiven) {

    /** A ring session's buffer: the whole trace it can keep. */
    public static final long DEFAULT_RING_BUFFER_BYTES = 32L * 1024 * 1024;
    /**
     * A streamed session's buffer: it holds only what the file has not taken yet (it is drained every
     * 256 KiB), while the SMB absorbs bursts. A quarter of the ring's default saves 24 MiB of the host's
     * heap, and about 100 ms of a JVM's start with {@code start}, at the same rate into the file
     * (benchmarks/README.md).
     */
    public static final long DEFAULT_STREAMED_BUFFER_BYTES = 8L * 1024 * 1024;

    /**
     * The embedded service's SMB: eight times the daemon's per-producer default and the ABI's largest
     * (Perfetto's too), because its one producer is this JVM and what it must absorb is the first
     * seconds of a busy session, while the service thread gets little of a CPU the application's threads
     * and the JIT are saturating. 200 threads paced at 3,000 slices/s each from the JVM's start lost
     * events in 6 of 8 runs with 16 MiB (up to 40 %, counted) and in 1 of 16 with 32 MiB (on a busier
     * day, in every run: 53 % against 34 % of their events, counted); a single
     * thread emitting 3 M slices/s lost about 3 M events in its first second with 4 MiB, 0 to 0.3 M with
     * 16 MiB (benchmarks/README.md).
     */
    public static final int EMBEDDED_SMB_BYTES = SharedMemoryBuffer.MAX_SIZE;

    public static final List<String> DEFAULT_SOURCES = List.of(TrackEventDataSource.NAME, GcDataSource.NAME,
            ThreadsDataSource.NAME, MemoryDataSource.NAME, JmxDataSource.NAME);
    /** jvm.jfr is on only when asked for (by name or with {@code jfr=}): a JFR recording is not free. */
    private static final Set<String> KNOWN_SOURCES = Set.of(TrackEventDataSource.NAME, GcDataSource.NAME,
            ThreadsDataSource.NAME, MemoryDataSource.NAME, JmxDataSource.NAME, JfrDataSource.NAME);
    private static final List<String> LOG_LEVELS = List.of("off", "error", "warn", "info", "debug", "trace");
    /** Longest duration or period: a trace config holds milliseconds as uint32. */
    static final long MAX_DURATION_MS = 0xFFFF_FFFFL;
    /** Largest buffer the trace config's uint32 size_kb holds (the service allows far less). */
    static final long MAX_BUFFER_BYTES = 0xFFFF_FFFFL * 1024;

    /** Parses the option string; throws {@link IllegalArgumentException} naming the offending key or value. */
    public static AgentOptions parse(String text) {
        boolean start = false;
        long duration = 0;
        Path file = null;
        long buffer = 0;
        List<String> sources = DEFAULT_SOURCES;
        List<String> categories = List.of();
        String log = "warn";
        long threadsPeriod = ThreadsDataSource.DEFAULT_PERIOD_MS;
        long memoryPeriod = MemoryDataSource.DEFAULT_PERIOD_MS;
        List<String> jmx = MBeanAttributeSpec.DEFAULT_ATTRIBUTES;
        long jmxPeriod = JmxDataSource.DEFAULT_PERIOD_MS;
        String name = null;
        boolean ring = false;
        Path config = null;
        Set<String> given = new HashSet<>();
        String jfr = null;
        DaemonSocket socket = DaemonSocket.DEFAULT;
        if (text != null && !text.isBlank()) {
            for (String item : text.split(",")) {
                String trimmed = item.trim();
                if (trimmed.isEmpty()) {
                    continue;
                }
                int eq = trimmed.indexOf('=');
                String key = eq < 0 ? trimmed : trimmed.substring(0, eq).trim();
                String value = eq < 0 ? null : trimmed.substring(eq + 1).trim();
                if (!given.add(key)) {
                    throw new IllegalArgumentException("jtrace option '" + key + "' is given twice");
                }
                switch (key) {
                    case "start":
                        if (value != null) {
                            throw new IllegalArgumentException("jtrace option 'start' takes no value");
                        }
                        start = true;
                        break;
                    case "ring":
                        if (value != null) {
                            throw new IllegalArgumentException("jtrace option 'ring' takes no value");
                        }
                        ring = true;
                        break;
                    case "name":
                        name = require(key, value);
                        if (!name.matches("[A-Za-z0-9._-]+")) {
                            throw new IllegalArgumentException("jtrace option 'name' may hold only letters, digits, "
                                    + "'.', '_' and '-', got '" + value + "'");
                        }
                        break;
                    case "config":
                        config = Path.of(require(key, value));
                        break;
                    case "duration":
                        duration = parseDuration(key, require(key, value));
                        break;
                    case "file":
                        file = Path.of(require(key, value));
                        break;
                    case "buffer":
                        buffer = parseSize(require(key, value));
                        break;
                    case "sources":
                        sources = parseSources(require(key, value));
                        break;
                    case "categories":
                        categories = List.of(require(key, value).split("\\+"));
                        break;
                    case "log":
                        log = require(key, value).toLowerCase(Locale.ROOT);
                        if (!LOG_LEVELS.contains(log)) {
                            throw new IllegalArgumentException("jtrace option 'log' must be one of " + LOG_LEVELS
                                    + ", got '" + value + "'");
                        }
                        break;
                    case "threads_period":
                        threadsPeriod = parsePeriod(key, require(key, value));
                        break;
                    case "memory_period":
                        memoryPeriod = parsePeriod(key, require(key, value));
                        break;
                    case "jmx":
                        jmx = parseJmxAttributes(require(key, value));
                        break;
                    case "jmx_period":
                        jmxPeriod = parsePeriod(key, require(key, value));
                        break;
                    case "jfr":
                        jfr = require(key, value);
                        JfrSettings.parse(jfr); // throws, naming what is wrong
                        break;
                    case "socket":
                        socket = DaemonSocket.parse(require(key, value));
                        break;
                    default:
                        throw new IllegalArgumentException("unknown jtrace option '" + key
                                + "' (known: start, name, ring, config, duration, file, buffer, sources, categories, log,"
                                + " threads_period, memory_period, jmx, jmx_period, jfr, socket; and, for an agent"
                                + " already running, the commands stop, flush, status and dump)");
                }
            }
        }
        if (!start && (duration > 0 || file != null || name != null || ring || config != null)) {
            throw new IllegalArgumentException("jtrace options 'duration', 'file', 'name', 'ring' and 'config' need 'start'");
        }
        if (config != null) {
            for (String inConfig : List.of("duration", "buffer", "sources", "categories", "ring", "threads_period",
                    "memory_period", "jmx", "jmx_period", "jfr")) {
                if (given.contains(inConfig)) {
                    throw new IllegalArgumentException("jtrace option '" + inConfig + "' cannot go with 'config': "
                            + "set it in the trace config");
                }
            }
        }
        if (!given.contains("buffer")) {
            buffer = ring ? DEFAULT_RING_BUFFER_BYTES : DEFAULT_STREAMED_BUFFER_BYTES;
        }
        if (jfr != null && !sources.contains(JfrDataSource.NAME)) {
            List<String> withJfr = new ArrayList<>(sources);
            withJfr.add(JfrDataSource.NAME);
            sources = List.copyOf(withJfr);
        }
        return new AgentOptions(start, duration, file, buffer, sources, categories, log, name, ring, config,
                threadsPeriod, memoryPeriod, jmx, jmxPeriod, jfr == null ? JfrSettings.DEFAULT : jfr, socket,
                given.contains("buffer"));
    }

    /** A sampling period: a duration of at least 10 ms. */
    static long parsePeriod(String key, String value) {
        long millis = parseDuration(key, value);
        if (millis < 10) {
            throw new IllegalArgumentException("jtrace option '" + key + "' must be at least 10ms, got '" + value + "'");
        }
        if (millis > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("jtrace option '" + key + "' is too long: '" + value + "' (at most "
                    + Integer.MAX_VALUE + "ms)");
        }
        return millis;
    }

    private static List<String> parseJmxAttributes(String value) {
        List<String> result = new ArrayList<>();
        for (String item : value.split("\\+")) {
            String spec = item.trim().replace(';', ',');
            MBeanAttributeSpec.parse(spec); // throws, naming the attribute, if it is malformed
            result.add(spec);
        }
        return List.copyOf(result);
    }

    private static String require(String key, String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("jtrace option '" + key + "' needs a value, as in " + key + "=... "
                    + "(from jcmd, which splits its arguments at '=', quote the options: jcmd PID JVMTI.agent_load "
                    + "jtrace.jar \"start," + key + "=...\")");
        }
        return value;
    }

    static long parseDuration(String value) {
        return parseDuration("duration", value);
    }

    static long parseDuration(String key, String value) {
        String v = value.toLowerCase(Locale.ROOT);
        long unit;
        String number;
        if (v.endsWith("ms")) {
            unit = 1;
            number = v.substring(0, v.length() - 2);
        } else if (v.endsWith("s")) {
            unit = 1000;
            number = v.substring(0, v.length() - 1);
        } else if (v.endsWith("m")) {
            unit = 60_000;
            number = v.substring(0, v.length() - 1);
        } else if (v.endsWith("h")) {
            unit = 3_600_000;
            number = v.substring(0, v.length() - 1);
        } else {
            throw new IllegalArgumentException("jtrace option '" + key + "' needs a unit (ms, s, m or h), got '" + value + "'");
        }
        long n = parsePositive(key, value, number);
        if (n > MAX_DURATION_MS / unit) {
            throw new IllegalArgumentException("jtrace option '" + key + "' is too long: '" + value + "' (at most "
                    + MAX_DURATION_MS + "ms, about 49 days: a trace config holds milliseconds in 32 bits)");
        }
        return n * unit;
    }

    static long parseSize(String value) {
        String v = value.toLowerCase(Locale.ROOT);
        long unit = 1;
        String number = v;
        if (v.endsWith("k")) {
            unit = 1024;
            number = v.substring(0, v.length() - 1);
        } else if (v.endsWith("m")) {
            unit = 1024 * 1024;
            number = v.substring(0, v.length() - 1);
        } else if (v.endsWith("g")) {
            unit = 1024L * 1024 * 1024;
            number = v.substring(0, v.length() - 1);
        }
        if (!number.trim().matches("[0-9]+")) {
            throw new IllegalArgumentException("jtrace option 'buffer' is not a size: '" + value
                    + "' (bytes, or a number with k, m or g, as in 64m)");
        }
        long n = parsePositive("buffer", value, number);
        if (n > MAX_BUFFER_BYTES / unit) {
            throw new IllegalArgumentException("jtrace option 'buffer' is too large: '" + value + "' (a trace config holds at most "
                    + (MAX_BUFFER_BYTES >> 10) + "k, and the service allows far less)");
        }
        long bytes = n * unit;
        if (bytes < TextTraceConfig.MIN_BUFFER_KB * 1024L) {
            throw new IllegalArgumentException("jtrace option 'buffer' must be at least " + TextTraceConfig.MIN_BUFFER_KB
                    + "k, got '" + value + "'");
        }
        return bytes;
    }

    private static long parsePositive(String key, String original, String number) {
        try {
            long n = Long.parseLong(number.trim());
            if (n <= 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("jtrace option '" + key + "' is not a positive amount: '" + original + "'");
        }
    }

    /** Whether the agent has a data source named {@code name}. */
    static boolean isKnownSource(String name) {
        return KNOWN_SOURCES.contains(name);
    }

    /** The agent's data sources, for messages: the default ones, then jvm.jfr. */
    static String knownSourcesText() {
        return String.join(", ", DEFAULT_SOURCES) + ", " + JfrDataSource.NAME;
    }

    private static List<String> parseSources(String value) {
        List<String> result = new ArrayList<>();
        for (String s : value.split("\\+")) {
            String name = s.trim();
            if (!isKnownSource(name)) {
                throw new IllegalArgumentException("jtrace option 'sources' names unknown data source '" + name
                        + "' (known: " + knownSourcesText() + ")");
            }
            result.add(name);
        }
        return List.copyOf(result);
    }
}
