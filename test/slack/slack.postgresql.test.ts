import { slackSuite } from "./slack.suite";

slackSuite("postgresql");
