package io.jtrace.jfr.live;

import java.io.IOException;
import java.text.ParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import jdk.jfr.Configuration;

/**
 * What {@code jvm.jfr} records, from its config text: a predefined JFR configuration ({@code default},
 * {@code profile}) or events with settings, {@code +}-separated, each {@code name[#setting=value]...},
 * e.g. {@code jdk.ThreadPark#threshold=1 ms+jdk.ExecutionSample#period=10 ms+my.AppEvent}.
 */
public final class JfrSettings {
    public static final String DEFAULT = "default";

    private final String configuration;
    private final Map<String, Map<String, String>> events;

    private JfrSettings(String configuration, Map<String, Map<String, String>> events) {
        this.configuration = configuration;
        this.events = events;
    }

    /**
     * The listed events that no event type of {@code registered} (names) has: a misspelt name, which JFR
     * itself ignores without a word, or an application's event whose class has not been loaded yet.
     */
    public List<String> eventsNotAmong(Set<String> registered) {
        return events.keySet().stream().filter(name -> !registered.contains(name)).toList();
    }

    /** Throws {@link IllegalArgumentException} naming what is wrong. */
    public static JfrSettings parse(String text) {
        String t = text == null || text.isBlank() ? DEFAULT : text.trim();
        if (!t.contains("#") && !t.contains("+") && !t.contains(".")) {
            try {
                Configuration.getConfiguration(t);
            } catch (IOException | ParseException e) {
                throw new IllegalArgumentException("jvm.jfr: no predefined JFR configuration '" + t
                        + "' (the JDK has 'default' and 'profile')", e);
            }
            return new JfrSettings(t, Map.of());
        }
        Map<String, Map<String, String>> events = new LinkedHashMap<>();
        for (String item : t.split("\\+")) {
            String[] parts = item.trim().split("#");
            if (parts[0].isBlank()) {
                throw new IllegalArgumentException("jvm.jfr: empty event name in '" + t + "'");
            }
            Map<String, String> settings = new LinkedHashMap<>();
            for (int i = 1; i < parts.length; i++) {
                int eq = parts[i].indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("jvm.jfr: setting '" + parts[i] + "' of " + parts[0]
                            + " is not setting=value");
                }
                settings.put(parts[i].substring(0, eq).trim(), parts[i].substring(eq + 1).trim());
            }
            events.put(parts[0].trim(), settings);
        }
        return new JfrSettings(null, events);
    }

    /**
     * The event types these settings enable: a JFR stream also delivers the events of every other
     * recording in the JVM (it reads the shared repository), which the session did not ask for. An
     * event listed without {@code enabled=false} counts as enabled, as {@code EventSettings} does.
     */
    public Set<String> enabledEvents() {
        Set<String> names = new HashSet<>();
        if (configuration != null) {
            try {
                for (Map.Entry<String, String> e : Configuration.getConfiguration(configuration).getSettings().entrySet()) {
                    if (e.getKey().endsWith("#enabled") && e.getValue().equals("true")) {
                        names.add(e.getKey().substring(0, e.getKey().length() - "#enabled".length()));
                    }
                }
            } catch (IOException | ParseException e) {
                throw new IllegalStateException("jvm.jfr: configuration '" + configuration + "' became unreadable", e);
            }
        } else {
            events.forEach((name, settings) -> {
                if (!"false".equals(settings.get("enabled"))) {
                    names.add(name);
                }
            });
        }
        return names;
    }

    /** A predefined configuration's name, or null when events are listed. */
    public String configuration() {
        return configuration;
    }

    public Map<String, Map<String, String>> events() {
        return events;
    }
}
