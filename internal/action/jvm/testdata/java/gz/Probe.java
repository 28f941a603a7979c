package gz;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileOutputStream;
import java.io.FileReader;
import java.io.OutputStream;
import java.util.Properties;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The program of gozie's java action tests. Each argument is a command
 * "verb:value"; what the commands find is written as Java properties to
 * the file named by the system property oozie.action.output.properties.
 */
public class Probe {
    public static void main(String[] args) throws Exception {
        Properties out = new Properties();
        for (String arg : args) {
            int i = arg.indexOf(':');
            String verb = i < 0 ? arg : arg.substring(0, i);
            String val = i < 0 ? "" : arg.substring(i + 1);
            switch (verb) {
                case "exit":
                    System.exit(Integer.parseInt(val));
                    break;
                case "throw":
                    throw new IllegalStateException(val);
                case "prop": {
                    int eq = val.indexOf('=');
                    out.setProperty(val.substring(0, eq), val.substring(eq + 1));
                    break;
                }
                case "conf":
                    out.setProperty("conf." + val, confValue(val));
                    break;
                case "sys":
                    out.setProperty("sys." + val, String.valueOf(System.getProperty(val)));
                    break;
                case "env":
                    out.setProperty("env." + val, String.valueOf(System.getenv(val)));
                    break;
                case "file":
                    try (BufferedReader r = new BufferedReader(new FileReader(val))) {
                        out.setProperty("file." + val, r.readLine());
                    }
                    break;
                case "class":
                    out.setProperty("class." + val,
                            (String) Class.forName(val).getMethod("value").invoke(null));
                    break;
                case "big":
                    for (int k = 0; k < 300; k++) {
                        out.setProperty("k" + k, "0123456789");
                    }
                    break;
                case "childids":
                    try (OutputStream o = new FileOutputStream(System.getProperty("oozie.action.externalChildIDs"))) {
                        o.write(val.getBytes("UTF-8"));
                    }
                    break;
                default:
                    System.err.println("unknown command " + arg);
                    System.exit(2);
            }
        }
        if (!out.isEmpty()) {
            try (OutputStream o = new FileOutputStream(new File(System.getProperty("oozie.action.output.properties")))) {
                out.store(o, "");
            }
        }
    }

    /** The value of a property of the action configuration, as a program reads it. */
    static String confValue(String name) throws Exception {
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new File(System.getProperty("oozie.action.conf.xml")));
        NodeList props = doc.getElementsByTagName("property");
        String value = "(unset)";
        for (int i = 0; i < props.getLength(); i++) {
            Element p = (Element) props.item(i);
            if (name.equals(p.getElementsByTagName("name").item(0).getTextContent())) {
                value = p.getElementsByTagName("value").item(0).getTextContent();
            }
        }
        return value;
    }
}
