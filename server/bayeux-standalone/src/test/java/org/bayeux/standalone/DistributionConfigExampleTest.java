package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.bayeux.backplane.redis.RedisBackplaneConfig;
import org.bayeux.oort.OortSettings;
import org.junit.jupiter.api.Test;

/**
 * The distribution's conf/bayeux.properties.example names only keys that exist, with values the server accepts:
 * each commented-out {@code #key=value} line, given as {@code --set key=value}, passes the start's checks.
 */
class DistributionConfigExampleTest {
    private static final Pattern SETTING = Pattern.compile("^#([A-Za-z][A-Za-z0-9.]*)=(.*)$");

    @Test
    void everyExampleKeyAndValueIsAccepted() throws Exception {
        List<String> engineAndTransport = new ArrayList<>();
        List<String> backplane = new ArrayList<>();
        List<String> oort = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("src/dist/conf/bayeux.properties.example"))) {
            Matcher setting = SETTING.matcher(line);
            if (!setting.matches()) {
                continue;
            }
            String key = setting.group(1);
            if (OortSettings.isKey(key)) {
                oort.add(key);
            } else if (RedisBackplaneConfig.OPTIONS.stream().anyMatch(option -> option.key().equals(key))) {
                backplane.add("--set");
                backplane.add(key + "=" + setting.group(2));
            } else {
                engineAndTransport.add("--set");
                engineAndTransport.add(key + "=" + setting.group(2));
            }
        }
        assertThat(engineAndTransport).hasSizeGreaterThan(20);
        assertThat(backplane).isNotEmpty();
        assertThat(oort).containsExactly("oort.seeds", "oort.secretFile", "oort.channels");
        StandaloneOptions.parse(engineAndTransport.toArray(String[]::new));
        List<String> withBackplane = new ArrayList<>(List.of("--backplane", "redis://127.0.0.1:1"));
        withBackplane.addAll(backplane);
        assertThat(StandaloneOptions.parse(withBackplane.toArray(String[]::new)).backplaneConfig).isNotNull();
    }
}
