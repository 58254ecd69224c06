package io.jtrace.agent.trackevent;

import io.jtrace.protos.TrackEventConfig;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Decides which categories a session enables, from {@code TrackEventConfig}'s enabled_categories and
 * disabled_categories (glob patterns with {@code *} and {@code ?}). Perfetto's precedence: an exact
 * enabled name wins, then an exact disabled name, then enabled patterns, then disabled patterns; a
 * config that lists no categories at all enables every category, except those named
 * {@value #DISABLED_BY_DEFAULT_PREFIX}..., which only their exact name enables.
 */
public final class CategoryFilter {
    /**
     * Categories named so are off unless named exactly in enabled_categories: a pattern, or a config
     * that lists none, does not enable them. Perfetto's SDK keeps its {@code TRACE_DISABLED_BY_DEFAULT}
     * categories off by default too (their "slow" tag is in the default disabled_tags); jtrace has no
     * tags, so the exact name is the one way to ask for them.
     */
    public static final String DISABLED_BY_DEFAULT_PREFIX = "disabled-by-default-";

    private final List<String> enabled;
    private final List<String> disabled;

    public CategoryFilter(List<String> enabled, List<String> disabled) {
        this.enabled = List.copyOf(enabled);
        this.disabled = List.copyOf(disabled);
    }

    public static CategoryFilter from(TrackEventConfig config) {
        return new CategoryFilter(config.getEnabledCategoriesList(), config.getDisabledCategoriesList());
    }

    public boolean isEnabled(String category) {
        if (enabled.contains(category)) {
            return true;
        }
        if (category.startsWith(DISABLED_BY_DEFAULT_PREFIX)) {
            return false;
        }
        if (enabled.isEmpty() && disabled.isEmpty()) {
            return true;
        }
        if (disabled.contains(category)) {
            return false;
        }
        if (matchesAny(enabled, category)) {
            return true;
        }
        if (matchesAny(disabled, category)) {
            return false;
        }
        return enabled.isEmpty();
    }

    private static boolean matchesAny(List<String> globs, String name) {
        for (String glob : globs) {
            if (globToRegex(glob).matcher(name).matches()) {
                return true;
            }
        }
        return false;
    }

    private static Pattern globToRegex(String glob) {
        StringBuilder regex = new StringBuilder();
        for (char c : glob.toCharArray()) {
            if (c == '*') {
                regex.append(".*");
            } else if (c == '?') {
                regex.append('.');
            } else {
                regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString());
    }
}
