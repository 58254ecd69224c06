package io.jtrace.agent;

/**
 * Configures the agent's bundled (relocated) SLF4J simple logger: stderr only, never stdout, level
 * from the {@code log} option (warn by default). The property names below are relocated along with the
 * logger by the shade plugin, so they configure only jtrace's copy, never the application's logging.
 */
final class AgentLogging {
    private AgentLogging() {}

    static void configure(String level) {
        setIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", level);
        setIfAbsent("org.slf4j.simpleLogger.logFile", "System.err");
        setIfAbsent("org.slf4j.simpleLogger.showThreadName", "false");
        setIfAbsent("org.slf4j.simpleLogger.showShortLogName", "true");
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
