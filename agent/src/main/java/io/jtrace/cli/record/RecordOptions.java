package io.jtrace.cli.record;

import static io.jtrace.cli.attach.CommandLineValues.value;

import io.jtrace.agent.AgentOptions;
import io.jtrace.agent.OptionsTraceConfig;
import io.jtrace.agent.config.TextTraceConfig;
import io.jtrace.cli.attach.CommandLineValues;
import io.jtrace.protos.TraceConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code jtrace record}'s command line, checked: every error is an {@link IllegalArgumentException} whose
 * message names the flag and what is wrong with it (exit code 2).
 *
 * <p>Without {@code --config} the session is what the agent's options of the same meaning give
 * ({@link OptionsTraceConfig}): the flags become an agent option string and go through
 * {@link AgentOptions#parse}, so both surfaces accept the same values and trace the same.
 */
public record RecordOptions(TraceConfig config, Path out, Long pid, Path socket, long readPeriodMillis,
                            long maxFileBytes, boolean verbose, boolean help) {
    static final long DEFAULT_READ_PERIOD_MS = 1000;
    /** The trace buffer a recording gets without --buffer. */
    static final String DEFAULT_BUFFER = "32m";
    /** The agent option each flag stands for: its error messages name the option, the user typed the flag. */
    private static final Map<String, String> FLAG_OF_OPTION = Map.of("duration", "--time", "buffer", "--buffer",
            "sources", "--sources", "categories", "--categories");

    public static RecordOptions parse(String[] args) {
        Path configFile = null;
        String time = null;
        String buffer = null;
        String sources = null;
        String categories = null;
        Path out = null;
        Long pid = null;
        Path socket = null;
        boolean verbose = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--help", "-h" -> {
                    return new RecordOptions(null, null, null, null, 0, 0, false, true);
                }
                case "-c", "--config" -> configFile = Path.of(value(args, ++i, a));
                case "--time", "-t" -> time = word(a, value(args, ++i, a));
                case "--buffer", "-b" -> buffer = word(a, value(args, ++i, a));
                case "--sources", "-s" -> sources = list(a, value(args, ++i, a));
                case "--categories" -> categories = list(a, value(args, ++i, a));
                case "-o", "--out" -> out = Path.of(value(args, ++i, a));
                case "--pid", "-p" -> pid = CommandLineValues.pid(value(args, ++i, a));
                case "--socket" -> socket = Path.of(value(args, ++i, a));
                case "--verbose", "-v" -> verbose = true;
                default -> throw new IllegalArgumentException(a.startsWith("-") ? "unknown option '" + a + "'"
                        : "unexpected argument '" + a + "'");
            }
        }
        if (pid != null && socket != null) {
            throw new IllegalArgumentException("give either --pid or --socket, not both");
        }
        TraceConfig config;
        long readPeriod = DEFAULT_READ_PERIOD_MS;
        long maxFileBytes = 0;
        if (configFile != null) {
            for (String[] flag : new String[][] {{"--time", time}, {"--buffer", buffer}, {"--sources", sources},
                    {"--categories", categories}}) {
                if (flag[1] != null) {
                    throw new IllegalArgumentException(flag[0] + " cannot go with --config: set it in the trace config");
                }
            }
            TraceConfig parsed = readConfig(configFile);
            if (out == null && !parsed.getOutputPath().isEmpty()) {
                out = Path.of(parsed.getOutputPath());
            }
            if (parsed.getFileWritePeriodMs() != 0) {
                readPeriod = Math.max(100, Integer.toUnsignedLong(parsed.getFileWritePeriodMs())); // a uint32
            }
            maxFileBytes = parsed.getMaxFileSizeBytes();
            config = forConsumer(parsed);
        } else {
            config = fromFlags(time, buffer, sources, categories);
        }
        if (out == null) {
            throw new IllegalArgumentException("where to? give -o <file>");
        }
        return new RecordOptions(config, out.toAbsolutePath(), pid, socket, readPeriod, maxFileBytes, verbose, false);
    }

    /**
     * The config as the service gets it from a consumer that reads the trace itself: the file-writing
     * fields are this command's business (it reads every period, writes {@code -o}, stops at
     * max_file_size_bytes), and the service refuses to hand a write_into_file session's packets to a reader.
     */
    static TraceConfig forConsumer(TraceConfig config) {
        return config.toBuilder().clearWriteIntoFile().clearOutputPath().clearFileWritePeriodMs()
                .clearMaxFileSizeBytes().build();
    }

    /**
     * The config as the service gets it when it writes the file: streamed into {@code temp} every
     * {@code periodMillis}, ended by the service at {@code maxFileBytes} (0: no limit).
     */
    static TraceConfig forService(TraceConfig config, Path temp, long periodMillis, long maxFileBytes) {
        TraceConfig.Builder b = config.toBuilder().setWriteIntoFile(true).setOutputPath(temp.toString())
                .setFileWritePeriodMs((int) periodMillis);
        if (maxFileBytes > 0) {
            b.setMaxFileSizeBytes(maxFileBytes);
        }
        return b.build();
    }

    private static TraceConfig readConfig(Path file) {
        String text;
        try {
            text = TextTraceConfig.readText(file);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--config: " + e.getMessage());
        }
        try {
            return TextTraceConfig.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage());
        }
    }

    private static TraceConfig fromFlags(String time, String buffer, String sources, String categories) {
        StringBuilder options = new StringBuilder("start");
        if (time != null) {
            options.append(",duration=").append(time);
        }
        // A recording's buffer is read out by this command, every second at most, not drained into a
        // file by the service: it keeps the ring's larger default, not a streamed session's.
        options.append(",buffer=").append(buffer != null ? buffer : DEFAULT_BUFFER);
        if (sources != null) {
            options.append(",sources=").append(sources);
        }
        if (categories != null) {
            options.append(",categories=").append(categories);
        }
        AgentOptions parsed;
        try {
            parsed = AgentOptions.parse(options.toString());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(asFlags(e.getMessage()));
        }
        // No heap cap here: the buffer lives in the service, which applies its own limits.
        return OptionsTraceConfig.of(parsed, parsed.bufferBytes());
    }

    /** "jtrace option 'duration' needs a unit ..." → "--time needs a unit ...". */
    private static String asFlags(String message) {
        String result = message;
        for (Map.Entry<String, String> e : FLAG_OF_OPTION.entrySet()) {
            result = result.replace("jtrace option '" + e.getKey() + "'", e.getValue());
        }
        return result;
    }

    /** A single value such as 10s or 64m: nothing that could smuggle another agent option in. */
    private static String word(String flag, String value) {
        if (!value.matches("[A-Za-z0-9.]+")) {
            throw new IllegalArgumentException(flag + " takes a value such as 10s or 64m, got '" + value + "'");
        }
        return value;
    }

    /** A comma-separated list, as the agent's '+'-separated one. */
    private static String list(String flag, String value) {
        List<String> items = new ArrayList<>();
        for (String item : value.split(",")) {
            String t = item.trim();
            if (t.isEmpty() || t.contains("+") || t.contains("=")) {
                throw new IllegalArgumentException(flag + " takes names separated by ',', got '" + value + "'");
            }
            items.add(t);
        }
        return String.join("+", items);
    }
}
