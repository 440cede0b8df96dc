import { slackSuite } from "./slack.suite";

slackSuite("sqlite");
