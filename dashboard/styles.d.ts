// The style sheet main.tsx imports: Vite builds it to dist/dashboard/dashboard.css.
declare module '*.css';
