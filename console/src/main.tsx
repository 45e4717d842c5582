/** The console's entry: styles, then the app, into #app. */
import { render } from 'preact';
import './styles.css';
import { App } from './app.js';
import { applyTheme } from './lib/theme.js';

applyTheme();
render(<App />, document.getElementById('app')!);
